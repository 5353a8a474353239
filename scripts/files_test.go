package scripts

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/action"
)

// usesRE finds the action references in workflows and composite actions.
var usesRE = regexp.MustCompile(`(?m)^\s*(?:-\s+)?uses:\s*(\S+)`)

// pinnedRE is an action pinned to a full commit SHA (a tag can be moved).
var pinnedRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$`)

func TestActionsArePinnedBySHA(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", ".github", "workflows", "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "host", "action.yml"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range usesRE.FindAllStringSubmatch(string(b), -1) {
			ref := m[1]
			if strings.HasPrefix(ref, "./") || pinnedRE.MatchString(ref) {
				continue
			}
			t.Errorf("%s: uses %s: pin actions by full commit SHA (owner/repo@<40 hex> # vX.Y.Z)", f, ref)
		}
	}
}

// dockerfile is the Dockerfile as instructions: continuation lines joined,
// comments dropped, split into stages at FROM.
func dockerfile(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var stages [][]string
	var cur strings.Builder
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if s, ok := strings.CutSuffix(line, "\\"); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(line)
		inst := cur.String()
		cur.Reset()
		if strings.HasPrefix(inst, "FROM ") {
			stages = append(stages, nil)
		}
		if len(stages) == 0 {
			continue // ARG before the first FROM
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], inst)
	}
	return stages
}

var digestRE = regexp.MustCompile(`@sha256:[0-9a-f]{64}(\s|$)`)

// TestDockerfile checks by reading what no docker build can check here: base
// images pinned by digest, the action image's rules (no USER, no WORKDIR, an
// absolute exec-form ENTRYPOINT), its contents (optr's sandbox launcher
// beside it) and labels, and a build that matches the release binaries'.
func TestDockerfile(t *testing.T) {
	t.Parallel()
	stages := dockerfile(t)
	if len(stages) < 2 {
		t.Fatalf("Dockerfile has %d stages, want a multi-stage build", len(stages))
	}
	var names []string
	for _, st := range stages {
		from := strings.Fields(st[0])
		image := from[1]
		if strings.HasPrefix(image, "--platform") {
			image = from[2]
		}
		if !slices.Contains(names, image) && !digestRE.MatchString(image) {
			t.Errorf("%s: pin the base image by digest (image:tag@sha256:…)", st[0])
		}
		if i := slices.Index(from, "AS"); i > 0 {
			names = append(names, from[i+1])
		}
	}

	all := strings.Join(slices.Concat(stages...), "\n")
	for _, want := range []string{
		"CGO_ENABLED=0",
		"-trimpath",
		"-X github.com/optr-dev/optr/internal/version.Version=${VERSION}",
		// optr's sandbox launcher in the same build, with the same flags
		"-o /out/ ./cmd/optr ./cmd/optr-sandbox-launcher",
		"sha256sum -c",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	for _, arg := range []string{"COPILOT_SHA256_X64", "COPILOT_SHA256_ARM64"} {
		if !regexp.MustCompile(`ARG ` + arg + `=[0-9a-f]{64}\n`).MatchString(all + "\n") {
			t.Errorf("Dockerfile lacks ARG %s=<sha256 of the npm tarball>", arg)
		}
	}

	final := stages[len(stages)-1]
	var entrypoint []string
	for _, inst := range final {
		word, rest, _ := strings.Cut(inst, " ")
		switch word {
		case "USER", "WORKDIR":
			t.Errorf("final stage sets %s: Docker actions run as root in the workspace the runner chooses", inst)
		case "ENTRYPOINT":
			entrypoint = append(entrypoint, rest)
		}
	}
	if diff := cmp.Diff([]string{`["/optr", "action"]`}, entrypoint); diff != "" {
		t.Errorf("final ENTRYPOINT (-want +got):\n%s", diff)
	}
	finalText := strings.Join(final, "\n")
	if _, digest, _ := strings.Cut(final[0], "@"); !strings.Contains(finalText, `org.opencontainers.image.base.digest="`+strings.TrimSpace(digest)+`"`) {
		t.Errorf("final stage's base.digest label is not its FROM digest %s", digest)
	}
	for _, want := range []string{
		"--no-install-recommends ca-certificates git",
		"COPY --from=copilot /out/copilot /usr/local/bin/copilot",
		// the launcher beside optr, where optr looks for it
		"COPY --from=build /out/optr /out/optr-sandbox-launcher /",
		`org.opencontainers.image.source="https://github.com/optr-dev/optr"`,
		`org.opencontainers.image.licenses="MIT"`,
		`org.opencontainers.image.version="${VERSION}"`,
		`org.opencontainers.image.revision="${REVISION}"`,
	} {
		if !strings.Contains(finalText, want) {
			t.Errorf("final stage lacks %q", want)
		}
	}
}

// issueForm is the part of a GitHub issue form that shapes the issue body.
type issueForm struct {
	Labels []string `yaml:"labels"`
	Body   []struct {
		Type       string `yaml:"type"`
		ID         string `yaml:"id"`
		Attributes struct {
			Label  string `yaml:"label"`
			Render string `yaml:"render"`
		} `yaml:"attributes"`
	} `yaml:"body"`
}

// render builds the issue body GitHub writes for a submitted form: each
// field as "### <label>", a blank line, the answer (or "_No response_").
func (f issueForm) render(answers map[string]string) string {
	var b strings.Builder
	for _, el := range f.Body {
		if el.Type == "markdown" {
			continue
		}
		v := answers[el.ID]
		if v == "" {
			v = "_No response_"
		}
		if el.Attributes.Render != "" {
			v = "```" + el.Attributes.Render + "\n" + v + "\n```"
		}
		b.WriteString("### " + el.Attributes.Label + "\n\n" + v + "\n\n")
	}
	return b.String()
}

// TestIssueFormConstraints: an issue opened from the form carries the
// trigger label and a "### Constraints" section that optr's own parser reads
// back as exactly the names typed, and nothing from the other fields.
func TestIssueFormConstraints(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", ".github", "ISSUE_TEMPLATE", "optr.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var form issueForm
	if err := yaml.Unmarshal(b, &form); err != nil {
		t.Fatalf("parse the issue form: %v", err)
	}
	if !slices.Contains(form.Labels, "optr") {
		t.Errorf("form labels %q lack optr, the default trigger-label", form.Labels)
	}
	tests := []struct {
		name        string
		constraints string
		want        []string
	}{
		{"commas", "no-todo, short", []string{"no-todo", "short"}},
		{"one a line with list markers", "- no-todo\n- `short`\nmax-len", []string{"no-todo", "short", "max-len"}},
		{"left empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := form.render(map[string]string{
				"intent":      "Write release notes.\n\n### Notes\nkeep-it-short",
				"constraints": tt.constraints,
			})
			got, rejected := action.ConstraintsSection(body)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("constraints read from the issue body (-want +got):\n%s\nbody:\n%s", diff, body)
			}
			if len(rejected) != 0 {
				t.Errorf("rejected %q", rejected)
			}
		})
	}
}
