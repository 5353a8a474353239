package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/github/githubtest"
)

const repo = githubtest.DefaultRepo

// ledgerBranch is where the Action commits the datalake by default: a
// branch of its own, created as an orphan (DESIGN §4.2).
const ledgerBranch = "optr-ledger"

// runner is one job of the Actions runner: a workspace, an event payload
// file, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and the environment
// the runner gives a Docker action.
type runner struct {
	t   *testing.T
	gh  *githubtest.Server
	ws  string
	dir string
	env map[string]string
}

func newRunner(t *testing.T, gh *githubtest.Server, runID string) *runner {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &runner{t: t, gh: gh, ws: ws, dir: dir}
	r.env = map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_API_URL":      gh.URL(),
		"GITHUB_SERVER_URL":   "https://github.com",
		"GITHUB_REPOSITORY":   repo,
		"GITHUB_WORKSPACE":    ws,
		"GITHUB_RUN_ID":       runID,
		"GITHUB_RUN_ATTEMPT":  "1",
		"GITHUB_SHA":          "ffac537e6cbbf934b08745a378932722df287a53",
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"GITHUB_EVENT_PATH":   filepath.Join(dir, "event.json"),
		"INPUT_GITHUB-TOKEN":  "ghs_e2etoken",
		"INPUT_CONFIG":        ".github/optr.yml",
		"INPUT_COMMAND":       "auto",
		"INPUT_TRIGGER-LABEL": "optr",
		"INPUT_DATALAKE":      ".optr",
		"INPUT_COMMIT":        "true",
		"HOME":                dir,
		"PATH":                os.Getenv("PATH"),
	}
	return r
}

// file writes a workspace file.
func (r *runner) file(rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.ws, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		r.t.Fatal(err)
	}
}

// event writes the payload of event name, read from testdata/webhooks and
// changed by edit.
func (r *runner) event(name, fixture string, edit func(map[string]any)) {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "webhooks", fixture))
	if err != nil {
		r.t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(data, &payload); err != nil {
		r.t.Fatal(err)
	}
	// The fixtures come from another repository: the payload names the
	// fake's default branch, as GitHub's payload names the real one.
	if r, ok := payload["repository"].(map[string]any); ok {
		r["default_branch"] = "main"
	}
	if edit != nil {
		edit(payload)
	}
	out, _ := json.Marshal(payload)
	if err := os.WriteFile(r.env["GITHUB_EVENT_PATH"], out, 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.env["GITHUB_EVENT_NAME"] = name
}

// result is what one `optr action` left behind.
type result struct {
	code    int
	stdout  string
	stderr  string
	outputs map[string]string
	summary string
}

func (r *runner) run() result {
	r.t.Helper()
	cmd := exec.Command(optrBin, "action")
	cmd.Dir = r.ws
	for k, v := range r.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil:
		r.t.Fatalf("run optr action: %v", err)
	}
	res.outputs = readOutputs(r.t, r.env["GITHUB_OUTPUT"])
	summary, _ := os.ReadFile(r.env["GITHUB_STEP_SUMMARY"])
	res.summary = string(summary)
	return res
}

// readOutputs parses GITHUB_OUTPUT the way the runner does: name=value
// lines and name<<DELIMITER heredocs. A value may not be set twice.
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		name, value := "", ""
		if i := strings.Index(line, "<<"); i > 0 && (!strings.Contains(line, "=") || i < strings.Index(line, "=")) {
			name = line[:i]
			delim := line[i+2:]
			var lines []string
			closed := false
			for sc.Scan() {
				if sc.Text() == delim {
					closed = true
					break
				}
				lines = append(lines, sc.Text())
			}
			if !closed {
				t.Fatalf("GITHUB_OUTPUT: heredoc %s for %s never closed", delim, name)
			}
			value = strings.Join(lines, "\n")
		} else if n, v, ok := strings.Cut(line, "="); ok {
			name, value = n, v
		} else {
			t.Fatalf("GITHUB_OUTPUT: invalid line %q", line)
		}
		if _, dup := out[name]; dup {
			t.Fatalf("GITHUB_OUTPUT: output %s set twice", name)
		}
		out[name] = value
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// demoConfig is a small config of command agents in the workspace.
const demoConfig = `agents:
  good:
    provider: command
    run: [sh, agents/good.sh]
  sloppy:
    provider: command
    run: [sh, agents/sloppy.sh]
constraints:
  no-todo:
    check: not-regex
    pattern: 'TODO'
selection:
  on-no-admissible: %s
`

const goodAgent = "cat >/dev/null\nprintf '# Answer\\n\\nAll good.\\n'\n"
const sloppyAgent = "cat >/dev/null\nprintf '# Draft\\n\\nTODO finish\\n'\n"

func (r *runner) demo(onNoAdmissible string) {
	r.file(".github/optr.yml", strings.Replace(demoConfig, "%s", onNoAdmissible, 1))
	r.file("agents/good.sh", goodAgent)
	r.file("agents/sloppy.sh", sloppyAgent)
}

// writer grants login write permission on the repository.
func writer(gh *githubtest.Server, login string) { gh.SetPermission(repo, login, "write") }

// labeled edits an issues.labeled payload: the label, the issue number and
// the sender.
func labeled(number int, label, sender string) func(map[string]any) {
	return func(p map[string]any) {
		p["label"].(map[string]any)["name"] = label
		issue := p["issue"].(map[string]any)
		issue["number"] = number
		issue["labels"] = []any{map[string]any{"name": label}}
		p["sender"].(map[string]any)["login"] = sender
		p["sender"].(map[string]any)["type"] = "User"
	}
}

// commented edits an issue_comment.created payload.
func commented(number int, body, sender, senderType string) func(map[string]any) {
	return func(p map[string]any) {
		p["issue"].(map[string]any)["number"] = number
		p["comment"].(map[string]any)["body"] = body
		p["comment"].(map[string]any)["user"].(map[string]any)["login"] = sender
		p["sender"].(map[string]any)["login"] = sender
		p["sender"].(map[string]any)["type"] = senderType
	}
}

// ledgerLines returns the committed ledger's lines on main.
func ledgerLines(t *testing.T, gh *githubtest.Server) []map[string]any {
	t.Helper()
	data, ok := gh.File(repo, ledgerBranch, ".optr/ledger.jsonl")
	if !ok {
		t.Fatal("no ledger committed on main")
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(data, "\n"), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("ledger line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

func optrComments(gh *githubtest.Server, issue int) []githubtest.Comment {
	var out []githubtest.Comment
	for _, c := range gh.Comments(repo, issue) {
		if strings.Contains(c.Body, "<!-- optr:") {
			out = append(out, c)
		}
	}
	return out
}
