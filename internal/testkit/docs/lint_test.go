package docs

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// lintIgnores are actionlint findings that are wrong about an example in
// the docs, each matched by its rule and a part of its message, with the
// reason. (The repository's own workflows are linted with the project's
// .github/actionlint.yaml instead, as .ci/run lints them.) An
// ignore that matches nothing in the docs fails TestDocsYAML, so the
// table cannot outlive the text or the actionlint release it works around.
var lintIgnores = []struct{ rule, message, reason string }{
	{"permissions", `unknown permission scope "copilot-requests"`,
		"the scope Copilot needs on the workflow's token (architecture §6); actionlint v1.7.12 predates it"},
}

// lint runs actionlint, as a library, on a workflow's text. project is the
// repository it belongs to (nil for an example in the docs, which is no
// file of ours). Each problem is returned as "<where>:<line>: message
// [rule]", its line moved by offset so it points into the file the text
// came from. In an example (no project) a finding lintIgnores excuses is
// left out, and its index counted in used.
func lint(t *testing.T, where string, text string, offset int, project *actionlint.Project, used map[int]int) []string {
	t.Helper()
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint(where, []byte(text), project)
	if err != nil {
		t.Fatalf("actionlint %s: %v", where, err)
	}
	var out []string
errs:
	for _, e := range errs {
		for i, ig := range lintIgnores {
			if project == nil && e.Kind == ig.rule && strings.Contains(e.Message, ig.message) {
				used[i]++
				continue errs
			}
		}
		out = append(out, fmt.Sprintf("%s:%d: %s [%s]", where, e.Line+offset, e.Message, e.Kind))
	}
	return out
}

func TestLintReportsAProblemWhereItIs(t *testing.T) {
	t.Parallel()
	// Job a (line 3) has no runs-on; the text starts at README.md:11.
	bad := "on: push\njobs:\n  a:\n    steps:\n      - run: echo\n"
	got := lint(t, "README.md", bad, 10, nil, map[int]int{})
	if len(got) != 1 || !strings.HasPrefix(got[0], "README.md:13: ") || !strings.Contains(got[0], "runs-on") {
		t.Errorf("lint found %q, want one problem, the missing runs-on at README.md:13", got)
	}
}
