package main

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/secretscan/tokentest"
)

// fragmentsCoder prints the Anthropic key split across two lines (as a
// wrapped table or a log line would), and an npm token optr never gave it
// (written into its script); its change is harmless.
func fragmentsCoder(npm string) string {
	return `cat >/dev/null
echo 'hello, world' > greet.txt
printf 'key part one: %s\n' "$(printf %s "$ANTHROPIC_API_KEY" | cut -c1-17)"
printf 'key part two: %s\n' "$(printf %s "$ANTHROPIC_API_KEY" | cut -c18-)"
printf 'published with NPM_TOKEN=%s\n' '` + npm + `'
`
}

// Issue 27.7: a secret split across lines reached committed files, the
// pull request and a comment as fragments of 8 bytes or more, and the
// value of a secret variable optr does not list (NPM_TOKEN) was not
// redacted at all (now the agent writes a token optr never gave it). Neither now reaches any committed file, the pull
// request or a comment — also from the issue's own title and body.
func TestActionSecretFragmentsNeverLeave(t *testing.T) {
	t.Parallel()
	const anthropic = "sk-ant-E2EfragmentKEY-9876543210zyxwvut"
	npm := tokentest.NPMToken(27)
	gh := githubtest.NewServer(t)
	writer(gh, "maintainer")
	gh.AddIssue(repo, 7, "Publish with "+npm, "Use the key "+anthropic[:20]+"\n"+anthropic[20:]+" to do it.", "maintainer")
	files := map[string]string{"greet.txt": "hello\n", "agents/coder.sh": fragmentsCoder(npm),
		".github/optr.yml": detectionConfig + "detection: { on-finding: warn }\n"}
	gh.Commit(repo, "main", files, "base")
	r := newRunner(t, gh, "4301")
	checkoutCommit(r, files)
	r.Env["INPUT_CONFIG"] = ".github/optr.yml"
	r.Env["ANTHROPIC_API_KEY"] = anthropic
	r.Env["NPM_TOKEN"] = npm
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(7, "optr", "maintainer"))
	res := r.run()
	if res.code != 0 || res.outputs["pull-request"] == "" {
		t.Fatalf("exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	scan := secretScan(t, anthropic, npm)
	committed := gh.Files(repo, ledgerBranch)
	var result string
	for path, content := range committed {
		scan("committed "+path, content)
		if strings.HasSuffix(path, "/result.md") {
			result = content
		}
	}
	if !strings.Contains(result, "key part one: [redacted]") || !strings.Contains(result, "NPM_TOKEN=[redacted:npm-access-token]") {
		t.Errorf("result.md is not the output redacted:\n%s", result)
	}
	pulls := gh.Pulls(repo)
	if len(pulls) != 1 {
		t.Fatalf("%d pull requests", len(pulls))
	}
	scan("pull request", pulls[0].Title+"\n"+pulls[0].Body)
	for path, content := range gh.Files(repo, pulls[0].Head) {
		if path != "agents/coder.sh" { // the test's own agent, which holds the token it prints
			scan("pull request file "+path, content)
		}
	}
	for _, c := range gh.Comments(repo, 7) {
		if c.Login != "maintainer" { // the issue and its comments are the maintainer's own text
			scan("comment", c.Body)
		}
	}
	scan("step summary", res.summary)
	for name, v := range res.outputs {
		scan("output "+name, v)
	}
}
