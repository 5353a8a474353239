package main

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

// secretsConfig runs a leaky command agent (it prints a key, dumps its
// environment into $OPTR_OUTPUT_DIR, prints a key into stderr where the
// error message's 2 KiB cut splits it, and fails, so the analyzer is
// asked), a command check that prints keys, and a judge (also the
// analyzer) whose answers quote a key.
const secretsConfig = `agents:
  leaky:
    provider: command
    run: [sh, agents/leaky.sh]
    pass-env: [OPENAI_API_KEY, ANTHROPIC_API_KEY]  # keys it was given, to leak
  good:
    provider: command
    run: [sh, agents/good.sh]
  judge:
    provider: openai
    model: gpt-4.1
constraints:
  printed:
    check: command
    run: [sh, -c, 'cat >/dev/null; echo "token=$OPENAI_API_KEY gh=$GITHUB_TOKEN"; exit 1']
    hard: false
  judged:
    check: judge
    agent: judge
    criterion: the answer is safe
    hard: false
pipelines:
  main: {mode: select, agents: [leaky, good]}
recovery: {attempts: 1, analyzer: judge, max-alternatives: 0}
selection: {on-no-admissible: least-bad}
`

const leakyAgent = `cat >/dev/null
env > "$OPTR_OUTPUT_DIR/env.txt"
printf 'answer holding %s and %s\n' "$OPENAI_API_KEY" "$ANTHROPIC_API_KEY"
printf 'stderr %s' "$GITHUB_TOKEN" >&2
head -c 2040 /dev/zero | tr '\0' y >&2
exit 3
`

// secretPieces are what must not appear: each secret whole, and each
// piece of 8 or more bytes at either of its ends (what a cut leaves).
func secretPieces(secrets ...string) []string {
	var out []string
	for _, s := range secrets {
		for k := 8; k <= len(s); k++ {
			out = append(out, s[:k], s[len(s)-k:])
		}
	}
	return out
}

// secretScan returns a check that fails t when text, found where, holds a
// piece of one of secrets (secretPieces).
func secretScan(t *testing.T, secrets ...string) func(where, text string) {
	pieces := secretPieces(secrets...)
	return func(where, text string) {
		t.Helper()
		for _, p := range pieces {
			if strings.Contains(text, p) {
				t.Errorf("%s holds %q (a piece of a secret)", where, p)
				return
			}
		}
	}
}

// Every committed byte, comment, output, summary, log line and datalake file
// of a run whose agents, checks, judges, analyzer, $OPTR_OUTPUT_DIR,
// escalations and intent all carry distinctive secrets holds none of them.
func TestActionSecretsNeverLeave(t *testing.T) {
	t.Parallel()
	llm := llmtest.NewOpenAI(t)
	verdict := `{"pass": false, "reason": "it quotes ` + llm.Key + `", "action": "escalate", "hint": "drop ` + llm.Key + `", "reasoning": "saw ` + llm.Key + `"}`
	llm.SetDefault(llmtest.Reply{Text: llmtest.Answer(verdict, 10)})
	const (
		ghToken   = "ghs_E2EworkflowTOKEN0123456789abcdefXYZ"
		anthropic = "sk-ant-E2EanthropicKEY-9876543210zyxwv"
	)
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 41, "Leak test", "Use the key "+anthropic+" to do it.\n\n### Constraints\n\njudged\n", "maintainer")
	writer(gh, "maintainer")
	r := newRunner(t, gh, "9901")
	r.Env["INPUT_GITHUB-TOKEN"] = ghToken
	r.Env["GITHUB_TOKEN"] = ghToken
	r.Env["ANTHROPIC_API_KEY"] = anthropic
	for k, v := range llm.Env() {
		r.Env[k] = v
	}
	r.Env["INPUT_CONFIG"] = ".github/optr.yml"
	r.File(".github/optr.yml", secretsConfig)
	r.File("agents/leaky.sh", leakyAgent)
	r.File("agents/good.sh", goodAgent)
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(41, "optr", "maintainer"))
	res := r.run()
	if res.code != 0 {
		t.Fatalf("exit %d outputs %v\n%s\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}

	scan := secretScan(t, ghToken, anthropic, llm.Key)
	for _, line := range strings.Split(res.stdout+"\n"+res.stderr, "\n") {
		if !strings.HasPrefix(line, "::add-mask::") {
			scan("log line "+line, line)
		}
	}
	for name, v := range res.outputs {
		scan("output "+name, v)
	}
	scan("step summary", res.summary)
	files := gh.Files(repo, ledgerBranch)
	if len(files) < 5 {
		t.Fatalf("only %d files committed", len(files))
	}
	sawEnv := false
	for path, content := range files {
		scan("committed "+path, content)
		if strings.HasSuffix(path, "agent-files/env.txt") {
			sawEnv = strings.Contains(content, "ANTHROPIC_API_KEY=[redacted]")
		}
	}
	if !sawEnv {
		t.Error("the env dump in $OPTR_OUTPUT_DIR was not committed redacted")
	}
	for _, c := range gh.Comments(repo, 41) {
		scan("comment", c.Body)
	}
	_ = filepath.WalkDir(r.Workspace, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(p, filepath.Join(r.Workspace, "agents")) || strings.HasPrefix(p, filepath.Join(r.Workspace, ".github")) {
			return err
		}
		data, _ := os.ReadFile(p)
		scan("workspace file "+p, string(data))
		return nil
	})
	if n := len(llm.Requests()); n < 2 {
		t.Errorf("the judge and analyzer made %d requests; the test did not reach them", n)
	}
}

// Code changes over the matrix keep secrets in too: an agent that writes a
// key into the repository has its change refused in its task job, and no
// artifact a task uploads, no committed file, pull request, comment,
// output or log line of any job holds a piece of it.
func TestMatrixChangesSecretsNeverLeave(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-E2EmatrixCHANGESkey-0123456789abc"
	gh := issueServer(t)
	gh.Commit(repo, "main", changesFiles, "base")
	leaky := strings.Replace(matrixChangesConfig, "  gamma:", `  leaky: { provider: command, pass-env: [ANTHROPIC_API_KEY], run: [sh, -c, "cat >/dev/null; echo $ANTHROPIC_API_KEY > key.txt; echo 'hello, world' > greet.txt; echo wrote $ANTHROPIC_API_KEY"] }
  gamma:`, 1)
	var workspaces []string
	var mu sync.Mutex
	files := maps.Clone(changesFiles)
	files[".github/optr.yml"] = leaky
	checkout := func(r *runner) {
		checkoutCommit(r, files)
		r.Env["ANTHROPIC_API_KEY"] = key
		mu.Lock()
		workspaces = append(workspaces, r.Workspace)
		mu.Unlock()
	}
	var artifactsDir string
	jobs := runMatrix(t, gh, "3701", func(artifacts string) { artifactsDir = t.TempDir(); copyDir(t, artifacts, artifactsDir) }, checkout)
	g := jobs.gather
	if g.code != 0 || g.outputs["selected-agent"] != "beta" || g.outputs["pull-request"] == "" {
		t.Fatalf("gather: exit %d, outputs %v\n%s%s", g.code, g.outputs, g.stdout, g.stderr)
	}

	scan := secretScan(t, key)
	refused := false
	scanTree := func(root string) {
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(p, string(filepath.Separator)+".git"+string(filepath.Separator)) {
				return err
			}
			data, _ := os.ReadFile(p)
			scan("file "+p, string(data))
			if strings.HasSuffix(p, filepath.Join("optr-task-leaky", "result.json")) {
				refused = strings.Contains(string(data), "contains the value of a secret")
			}
			return nil
		})
	}
	scanTree(artifactsDir)
	for _, ws := range workspaces {
		scanTree(ws)
	}
	if !refused {
		t.Error("leaky's task result does not say its change was refused for holding a secret")
	}
	for _, res := range append([]result{jobs.plan, g}, jobs.taskResults...) {
		for _, line := range strings.Split(res.stdout+"\n"+res.stderr, "\n") {
			if !strings.HasPrefix(line, "::add-mask::") {
				scan("log line "+line, line)
			}
		}
		for name, v := range res.outputs {
			scan("output "+name, v)
		}
	}
	for _, branch := range []string{ledgerBranch, "main"} {
		for path, content := range gh.Files(repo, branch) {
			scan(branch+": "+path, content)
		}
	}
	for _, pr := range gh.Pulls(repo) {
		scan("pull request body", pr.Title+pr.Body)
		for path, content := range gh.Files(repo, pr.Head) {
			scan("pull request file "+path, content)
		}
	}
	for _, c := range gh.Comments(repo, 7) {
		scan("comment", c.Body)
	}
}
