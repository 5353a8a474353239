package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/testkit/gittest"
	"github.com/optr-dev/optr/internal/tlogwitness/witnesstest"
)

// optrIn runs the optr binary in dir with env (and PATH) and returns its
// exit code, stdout and stderr.
func optrIn(t *testing.T, dir string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(optrBin, args...)
	cmd.Dir = dir
	cmd.Env = append(gittest.Env, "PATH="+os.Getenv("PATH"), "HOME="+dir)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		t.Fatalf("optr %v: %v", args, err)
	}
	return 0, stdout.String(), stderr.String()
}

// cloneLedger makes a git clone of the ledger branch as it stands: its
// files in one commit with the tip's message (and so its trailers).
func cloneLedger(t *testing.T, gh *githubtest.Server) string {
	t.Helper()
	dir := t.TempDir()
	gittest.Write(t, dir, gh.Files(repo, ledgerBranch))
	os.WriteFile(filepath.Join(dir, ".git-msg"), []byte(gh.Log(repo, ledgerBranch)[0].Message), 0o644)
	gittest.Sh(t, dir, "git init -q -b optr-ledger . && git add .optr && git commit -q -F .git-msg && rm .git-msg")
	return dir
}

// forcePush replaces the clone's history with one commit whose ledger
// keeps entry 1 and re-chains the rest with another selection: a
// consistent rewrite, as a force-push and `git reset --hard` leave it.
func forcePush(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, ".optr", "ledger.jsonl")
	var entries []ledger.Entry
	if err := ledger.ScanFile(path, func(e ledger.Entry) error { entries = append(entries, e); return nil }); err != nil {
		t.Fatal(err)
	}
	var head ledger.Head
	var out []byte
	for i, e := range entries {
		d := ledger.Draft{Kind: e.Kind, Run: e.Run, Workflow: e.Workflow, Fields: e.Fields}
		d.Time, _ = time.Parse(time.RFC3339Nano, e.Time)
		if i > 0 {
			d.Fields = map[string]any{"selected": "sloppy", "mode": "select"}
		}
		ch, err := ledger.Chain(head, d)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := ch[0].Line()
		out, head = append(out, line...), ch[0].Head()
	}
	os.WriteFile(path, out, 0o644)
	os.WriteFile(filepath.Join(dir, ".git-msg"), []byte(ledger.WithTrailers("optr: the ledger, rewritten", head)), 0o644)
	gittest.Sh(t, dir, "git checkout -q --orphan rewritten && git add .optr && git commit -q -F .git-msg && rm .git-msg && git branch -q -M optr-ledger")
}

// ledgerKeyAndWitness makes the ledger's signing key pair, for the
// repository's origin, and starts the reference witness
// witness.example/w1, which trusts it (closed when the test ends).
func ledgerKeyAndWitness(t *testing.T) (skey, vkey string, w *witnesstest.Witness) {
	t.Helper()
	origin := ledger.Origin(repo)
	skey, vkey, err := ledger.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	w, err = witnesstest.Start(t.Context(), "witness.example/w1", map[string]string{origin: vkey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return skey, vkey, w
}

// TestWitnessedRunsEndToEnd, through the binary as the runner runs it:
// two runs in a row are each cosigned by a C2SP witness (the reference
// implementation) that checked the second's consistency proof from the
// first; a third with the witness down completes with a warning naming it;
// `verify --witness-key` accepts the cosigned checkpoint and refuses it
// for another witness's key; a consistent force-pushed rewrite is caught
// by `verify --witness` in the clone that verified the honest head, and by
// `--repo` from optr's comments in a clone that never saw it.
func TestWitnessedRunsEndToEnd(t *testing.T) {
	t.Parallel()
	origin := ledger.Origin(repo)
	skey, vkey, w := ledgerKeyAndWitness(t)
	other, err := witnesstest.Start(t.Context(), "witness.example/w2", map[string]string{origin: vkey})
	if err != nil {
		t.Fatal(err)
	}
	other.Close()

	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 12, "Say hello", "", "ada")
	writer(gh, "ada")
	run := func(id string) result {
		r := newRunner(t, gh, id)
		r.demo("fail")
		cfg, _ := os.ReadFile(filepath.Join(r.Workspace, ".github", "optr.yml"))
		r.File(".github/optr.yml", string(cfg)+fmt.Sprintf("ledger:\n  witnesses:\n    - url: %s\n      key: %s\n", w.URL, w.Key))
		r.Env["OPTR_LEDGER_KEY"] = skey
		r.Event("issues", "issues.labeled.json", actiontest.Labeled(12, "optr", "ada"))
		res := r.run()
		if res.code != 0 || res.outputs["status"] != "completed" {
			t.Fatalf("run %s: exit %d %v\n%s\n%s", id, res.code, res.outputs, res.stdout, res.stderr)
		}
		return res
	}
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "ledger.pub"), []byte(vkey+"\n"), 0o644)
	var cosigned string
	for i, id := range []string{"1201", "1202"} {
		res := run(id)
		cp := res.outputs["ledger-checkpoint"]
		if !strings.Contains(cp, "\n— witness.example/w1 ") {
			t.Fatalf("run %s: the checkpoint is not cosigned:\n%s\n%s", id, cp, res.stdout)
		}
		if got, ok := gh.File(repo, ledgerBranch, fmt.Sprintf(".optr/checkpoints/ledger-%d.cosigned", i+1)); !ok || got != cp {
			t.Errorf("run %s: checkpoints/ledger-%d.cosigned is not committed as the output says", id, i+1)
		}
		if got := w.Requests(); got != int64(i+1) {
			t.Errorf("after run %s the witness got %d requests, want one a run", id, got)
		}
		cosigned = cp
	}
	w.SetDown(true)
	res := run("1203")
	if !strings.Contains(res.stdout, "::warning::the ledger checkpoint is not cosigned by witness witness.example/w1") || strings.Contains(res.outputs["ledger-checkpoint"], "— witness.example/w1 ") {
		t.Errorf("run 1203 with the witness down: no warning naming it, or a cosignature:\n%s", res.stdout)
	}

	// The cosigned checkpoint of run 1202, as a workflow step would keep it.
	clone := cloneLedger(t, gh)
	os.WriteFile(filepath.Join(work, "cp.txt"), []byte(cosigned+"\n"), 0o644)
	verify := func(args ...string) (int, string, string) {
		return optrIn(t, clone, nil, append([]string{"ledger", "verify", "--checkpoint", filepath.Join(work, "cp.txt"), "--key-public", filepath.Join(work, "ledger.pub")}, args...)...)
	}
	if code, out, errOut := verify("--witness-key", w.Key); code != 0 || !strings.Contains(out, "cosigned by witness.example/w1") {
		t.Errorf("verify --witness-key of the witness: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := verify("--witness-key", other.Key); code != 1 || !strings.Contains(errOut, "witness.example/w2") {
		t.Errorf("verify --witness-key of another witness: exit %d\n%s", code, errOut)
	}

	// The clone verifies the honest history, then sees it force-pushed.
	if code, out, errOut := optrIn(t, clone, nil, "ledger", "verify", "--witness"); code != 0 {
		t.Fatalf("verify --witness of the honest history: exit %d\n%s%s", code, out, errOut)
	}
	honest, _ := ledger.TailHead(filepath.Join(clone, ".optr", "ledger.jsonl"))
	fresh := t.TempDir()
	gittest.Sh(t, fresh, "cp -r "+clone+"/.optr . && cp -r "+clone+"/.git . && rm -f .git/optr-witness")
	forcePush(t, clone)
	forcePush(t, fresh)
	code, _, errOut := optrIn(t, clone, nil, "ledger", "verify", "--witness")
	if code != 1 || !strings.Contains(errOut, fmt.Sprintf("head %d (%s)", honest.Seq, honest.Hash)) {
		t.Errorf("verify --witness after the force-push: exit %d\n%s", code, errOut)
	}
	if code, out, errOut := optrIn(t, fresh, nil, "ledger", "verify", "--witness"); code != 0 {
		t.Fatalf("a clone that never saw the honest history has nothing to compare (or the rewrite is not consistent): exit %d\n%s%s", code, out, errOut)
	}
	env := map[string]string{"GITHUB_API_URL": gh.URL(), "GITHUB_TOKEN": "ghs_e2etoken"}
	code, _, errOut = optrIn(t, fresh, env, "ledger", "verify", "--witness", "--repo", repo)
	if code != 1 || !strings.Contains(errOut, "issuecomment-") || !strings.Contains(errOut, "rewritten after optr published") {
		t.Errorf("verify --witness --repo after the force-push: exit %d\n%s", code, errOut)
	}
}

// TestWitnessRedirectIsNotFollowed, through the binary: a witness URL
// that answers 307 to another host (which would answer anything) is a
// warning naming the redirect; the other host never sees the checkpoint,
// and nothing it would say reaches the log or the output.
func TestWitnessRedirectIsNotFollowed(t *testing.T) {
	t.Parallel()
	skey, _, w := ledgerKeyAndWitness(t)
	const elsewhereSays = "ELSEWHERE-ANSWERED"
	var mu sync.Mutex
	var got []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(wr http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, string(body))
		mu.Unlock()
		fmt.Fprintln(wr, elsewhereSays)
	}))
	defer elsewhere.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(wr http.ResponseWriter, r *http.Request) {
		http.Redirect(wr, r, elsewhere.URL+"/add-checkpoint", http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()

	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 12, "Say hello", "", "ada")
	writer(gh, "ada")
	r := newRunner(t, gh, "1301")
	r.demo("fail")
	cfg, _ := os.ReadFile(filepath.Join(r.Workspace, ".github", "optr.yml"))
	r.File(".github/optr.yml", string(cfg)+fmt.Sprintf("ledger:\n  witnesses:\n    - url: %s\n      key: %s\n", redirector.URL, w.Key))
	r.Env["OPTR_LEDGER_KEY"] = skey
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(12, "optr", "ada"))
	res := r.run()
	if res.code != 0 || res.outputs["status"] != "completed" {
		t.Fatalf("exit %d %v\n%s\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 0 {
		t.Errorf("the host the witness redirected to got %d request(s), the first:\n%s", len(got), got[0])
	}
	if !strings.Contains(res.stdout, "::warning::the ledger checkpoint is not cosigned by witness") || !strings.Contains(res.stdout, "follows no redirect") {
		t.Errorf("no warning that the witness redirected:\n%s", res.stdout)
	}
	if all := res.stdout + res.stderr + res.outputs["ledger-checkpoint"]; strings.Contains(all, elsewhereSays) {
		t.Errorf("what the other host answered reached the log or the output:\n%s", all)
	}
}
