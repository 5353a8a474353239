package actionrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/testkit/clocktest"
	"github.com/optr-dev/optr/internal/testkit/demotest"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/ledger/attest"
)

const repo = githubtest.DefaultRepo

// job is one in-process `optr action` invocation: the Actions runner's
// job (actiontest.Runner), with the fake GitHub behind the Job's HTTP
// client.
type job struct {
	*actiontest.Runner
	t   *testing.T
	gh  *githubtest.Server
	log bytes.Buffer
	// seen, when set, records the URL of every request the Job sends
	// (GitHub and the LLM providers alike).
	seen *urls
}

func newJob(t *testing.T, gh *githubtest.Server, runID string) *job {
	t.Helper()
	return &job{Runner: actiontest.New(t, gh, runID), t: t, gh: gh}
}

// run runs the Job in this process and returns its error and outputs.
func (j *job) run() (map[string]string, error) {
	j.t.Helper()
	// Every reading of the clock is a second after the one before; sleeps
	// return at once.
	clock := clocktest.Ticking(clocktest.Start, time.Second)
	job := &Job{
		Getenv:     j.Getenv,
		Environ:    j.Environ(),
		Stdout:     &j.log,
		HTTPClient: j.client(),
		Now:        clock.Now,
		Sleep:      clock.Sleep,
	}
	err := job.Run(j.t.Context())
	return j.Outputs(), err
}

// client is the fake GitHub's client, recording into seen when set.
func (j *job) client() *http.Client {
	c := j.gh.Client()
	if j.seen != nil {
		c.Transport = &recording{next: c.Transport, seen: j.seen}
	}
	return c
}

// urls are the request URLs a recording transport saw.
type urls struct {
	mu  sync.Mutex
	all []string
}

func (u *urls) list() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.all)
}

// recording is an http.RoundTripper that notes each request's URL.
type recording struct {
	next http.RoundTripper
	seen *urls
}

func (r *recording) RoundTrip(req *http.Request) (*http.Response, error) {
	r.seen.mu.Lock()
	r.seen.all = append(r.seen.all, req.URL.String())
	r.seen.mu.Unlock()
	return r.next.RoundTrip(req)
}

const agentsConfig = `agents:
  good: { provider: command, run: [sh, agents/good.sh] }
  sloppy: { provider: command, run: [sh, agents/sloppy.sh] }
constraints:
  no-todo: { check: not-regex, pattern: 'TODO' }
selection: { on-no-admissible: %s }
ledger: { branch: main }
`

func (j *job) agents(onNoAdmissible, good string) {
	j.File(".github/optr.yml", strings.Replace(agentsConfig, "%s", onNoAdmissible, 1))
	j.File("agents/good.sh", "cat >/dev/null\nprintf '"+good+"'\n")
	j.File("agents/sloppy.sh", "cat >/dev/null\nprintf '# Draft\\n\\nTODO finish\\n'\n")
}

// committedLedger returns the entries of the ledger committed on branch.
func committedLedger(t *testing.T, gh *githubtest.Server, branch string) []ledger.Entry {
	t.Helper()
	return committedLedgerAt(t, gh, branch, ".optr/ledger.jsonl")
}

// committedLedgerAt is committedLedger of the ledger at path.
func committedLedgerAt(t *testing.T, gh *githubtest.Server, branch, path string) []ledger.Entry {
	t.Helper()
	data, ok := gh.File(repo, branch, path)
	if !ok {
		t.Fatalf("no ledger committed on %s", branch)
	}
	if _, err := ledger.Verify(strings.NewReader(data)); err != nil {
		t.Fatalf("committed ledger: %v", err)
	}
	var out []ledger.Entry
	if err := ledger.Scan(strings.NewReader(data), func(e ledger.Entry) error { out = append(out, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func kinds(es []ledger.Entry) string {
	var ks []string
	for _, e := range es {
		ks = append(ks, e.Kind)
	}
	return strings.Join(ks, ",")
}

func TestLabelledIssueRunReportsTheCommittedHead(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	gh.SetPermission(repo, "ada", "write")
	// Another writer's entry is already on the branch: this run's entries
	// are chained onto it when they are committed, and that chain is the
	// one the outputs report.
	gh.AddIssue(repo, 7, "Explain the ledger", "Please explain.", "ada")
	gh.Commit(repo, "main", map[string]string{".optr/ledger.jsonl": otherLedger(t)}, "earlier run")
	j := newJob(t, gh, "501")
	j.agents("fail", `# Answer\n\nAll good.\n`)
	j.Event("issues", "issues.labeled.json", actiontest.Labeled(7, "optr", "ada"))
	outs, err := j.run()
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, j.log.String())
	}
	if outs["status"] != "completed" || outs["selected-agent"] != "good" {
		t.Fatalf("outputs = %v", outs)
	}
	es := committedLedger(t, gh, "main")
	if got := kinds(es); got != "run,run" {
		t.Fatalf("committed kinds = %s", got)
	}
	last := es[len(es)-1]
	if last.Seq != 2 || outs["ledger-hash"] != last.Hash {
		t.Fatalf("ledger-hash output %s, committed head seq %d %s", outs["ledger-hash"], last.Seq, last.Hash)
	}
	if outs["ledger-commit"] != gh.Head(repo, "main") {
		t.Fatalf("ledger-commit %s, branch head %s", outs["ledger-commit"], gh.Head(repo, "main"))
	}
	local, err := os.ReadFile(filepath.Join(j.Workspace, ".optr", "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if remote, _ := gh.File(repo, "main", ".optr/ledger.jsonl"); string(local) != remote {
		t.Fatal("the workspace ledger is not the committed one")
	}
	if outs["result-file"] != ".optr/workflows/issue-7/runs/501-1/result.md" {
		t.Fatalf("result-file = %q", outs["result-file"])
	}
	att, err := os.ReadFile(filepath.Join(j.Workspace, ".optr/workflows/issue-7/runs/501-1/optr-attestation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st attest.Statement
	if err := json.Unmarshal(att, &st); err != nil {
		t.Fatal(err)
	}
	result, _ := os.ReadFile(filepath.Join(j.Workspace, outs["result-file"]))
	lastLine, _ := last.Line()
	wantSubjects := []attest.Subject{attest.FileSubject(outs["result-file"], result), attest.EntrySubject(".optr/ledger.jsonl", last.Seq, lastLine)}
	if !bytes.HasSuffix(local, lastLine) {
		t.Errorf("the attested entry line is not the ledger's last line")
	}
	if diff := cmp.Diff(wantSubjects, st.Subject); diff != "" || st.Predicate.Ledger.Hash != last.Hash || st.Predicate.Selected != "good" || st.Predicate.Checkpoint != outs["ledger-checkpoint"] {
		t.Errorf("attestation subjects (-want +got):\n%s\npredicate %+v", diff, st.Predicate)
	}
	cp, err := ledger.ParseCheckpoint([]byte(outs["ledger-checkpoint"]))
	if err != nil || cp.Origin != "optr/"+repo || cp.Size != 2 {
		t.Fatalf("ledger-checkpoint %q: %+v %v", outs["ledger-checkpoint"], cp, err)
	}
	for _, name := range []string{"tokens", "cost-usd"} {
		if _, ok := outs[name]; !ok {
			t.Errorf("output %s not set", name)
		}
	}
	var progress int
	for _, c := range gh.Comments(repo, 7) {
		if strings.Contains(c.Body, "<!-- optr:run=501-1 -->") {
			progress++
			if !strings.Contains(c.Body, outs["ledger-checkpoint"]) {
				t.Errorf("the progress comment does not carry the ledger checkpoint:\n%s", c.Body)
			}
			if !strings.Contains(c.Body, last.Hash) {
				t.Errorf("the progress comment does not show the committed head %s:\n%s", last.Hash, c.Body)
			}
			for _, link := range []string{"/actions/runs/501)", "/blob/" + outs["ledger-commit"] + "/.optr/workflows/issue-7/runs/501-1/result.md)"} {
				if !strings.Contains(c.Body, link) {
					t.Errorf("the progress comment has no link ending %s:\n%s", link, c.Body)
				}
			}
		}
	}
	if progress != 1 {
		t.Fatalf("%d progress comments, want 1", progress)
	}
}

// otherLedger is a one-entry ledger written by another run.
func otherLedger(t *testing.T) string {
	t.Helper()
	es, err := ledger.Chain(ledger.Head{}, ledger.Draft{
		Kind: ledger.KindRun, Run: "400-1", Workflow: "issue-3", Time: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		Fields: map[string]any{"selected": "x"},
	})
	if err != nil {
		t.Fatal(err)
	}
	line, err := es[0].Line()
	if err != nil {
		t.Fatal(err)
	}
	return string(line)
}

func TestPausedRunResumedByAWriter(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	gh.SetPermission(repo, "ada", "write")
	gh.AddIssue(repo, 9, "Explain", "Please.", "ada")
	first := newJob(t, gh, "600")
	first.agents("checkpoint", `# Answer\n\nTODO too\n`)
	first.Event("issues", "issues.labeled.json", actiontest.Labeled(9, "optr", "ada"))
	outs, err := first.run()
	if err != nil || outs["status"] != "paused" || outs["checkpoint-id"] == "" {
		t.Fatalf("first run: %v %v\n%s", err, outs, first.log.String())
	}
	es := committedLedger(t, gh, "main")
	if kinds(es) != "checkpoint" || outs["ledger-hash"] != es[0].Hash {
		t.Fatalf("after the pause: %s, ledger-hash %s", kinds(es), outs["ledger-hash"])
	}
	var asked bool
	for _, c := range gh.Comments(repo, 9) {
		asked = asked || strings.Contains(c.Body, "<!-- optr:checkpoint="+outs["checkpoint-id"]+" -->")
	}
	if !asked {
		t.Fatal("no checkpoint comment")
	}

	bad := newJob(t, gh, "602")
	bad.agents("checkpoint", `# Answer\n`)
	bad.Event("issue_comment", "issue_comment.created.json", actiontest.Commented(9, "/optr choose 9", "ada", "User"))
	if outs, err := bad.run(); err != nil || outs["status"] != "skipped" {
		t.Fatalf("/optr choose 9: %v %v", err, outs)
	}

	second := newJob(t, gh, "601")
	second.agents("checkpoint", `# Answer\n\nTODO too\n`)
	second.Event("issue_comment", "issue_comment.created.json", actiontest.Commented(9, "/optr choose 1 ship it", "ada", "User"))
	outs2, err := second.run()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, second.log.String())
	}
	es = committedLedger(t, gh, "main")
	if got := kinds(es); got != "checkpoint,decision,run" {
		t.Fatalf("after the decision: %s", got)
	}
	if outs2["status"] != "completed" || outs2["ledger-hash"] != es[2].Hash || outs2["run-id"] != "600-1" {
		t.Fatalf("resume outputs = %v", outs2)
	}

	late := newJob(t, gh, "603")
	late.agents("checkpoint", `# Answer\n`)
	late.Event("issue_comment", "issue_comment.created.json", actiontest.Commented(9, "/optr choose 2", "ada", "User"))
	if outs, err := late.run(); err != nil || outs["status"] != "skipped" {
		t.Fatalf("a second answer: %v %v", err, outs)
	}
	// Every comment optr posted carries a hidden marker, replies too, so a
	// retried job edits instead of posting again.
	var replies []string
	for _, c := range gh.Comments(repo, 9) {
		if c.Login == "ada" {
			continue
		}
		if !strings.Contains(c.Body, "<!-- optr:") {
			t.Errorf("a comment without a marker:\n%s", c.Body)
		}
		if strings.Contains(c.Body, "<!-- optr:reply=") {
			replies = append(replies, c.Body)
		}
	}
	if len(replies) != 2 || !strings.Contains(replies[0], "9") || !strings.Contains(strings.ToLower(replies[1]), "already") {
		t.Fatalf("replies = %q", replies)
	}
}

func TestDatalakeOutsideTheWorkspaceIsRefused(t *testing.T) {
	t.Parallel()
	for _, lake := range []string{"/tmp/lake", "../lake"} {
		gh := githubtest.NewServer(t)
		gh.SetPermission(repo, "ada", "write")
		j := newJob(t, gh, "700")
		j.Env["INPUT_DATALAKE"] = lake
		j.agents("fail", `# Answer\n`)
		j.Event("issues", "issues.labeled.json", actiontest.Labeled(3, "optr", "ada"))
		outs, err := j.run()
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), lake) {
			t.Fatalf("datalake %s: err = %v", lake, err)
		}
		if outs["status"] != "failed" {
			t.Fatalf("datalake %s: status = %q", lake, outs["status"])
		}
		if n := len(gh.Requests()); n != 0 {
			t.Fatalf("datalake %s: %d GitHub requests before the refusal", lake, n)
		}
	}
}

func TestCommitOffAppendsToTheWorkspaceLedger(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	j := newJob(t, gh, "800")
	j.Env["INPUT_COMMIT"] = "false"
	j.Env["INPUT_WORKFLOW"] = "nightly"
	j.Env["INPUT_INTENT"] = "say hello"
	j.agents("fail", `# Answer\n\nhello\n`)
	j.Event("workflow_dispatch", "workflow_dispatch.json", nil)
	outs, err := j.run()
	if err != nil || outs["status"] != "completed" {
		t.Fatalf("Run: %v %v\n%s", err, outs, j.log.String())
	}
	s, err := ledger.VerifyFile(filepath.Join(j.Workspace, ".optr", "ledger.jsonl"))
	if err != nil || s.Entries != 1 || outs["ledger-hash"] != s.Head.Hash || outs["ledger-commit"] != "" {
		t.Fatalf("workspace ledger %+v (%v), outputs %v", s, err, outs)
	}
	if c := gh.Count("PATCH /repos/{owner}/{repo}/git/refs/{ref}") + gh.Count("POST /repos/{owner}/{repo}/git/commits"); c != 0 {
		t.Fatalf("commit: false made %d git writes", c)
	}
}

// A permission GitHub could not report is not a denial: the sender is told
// the check failed and to re-run, and nothing runs.
func TestUncheckedPermissionSaysReRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		fail bool
		want string
	}{
		{"could not check", true, "could not check @ada's permission"},
		{"denied", false, "Only people with write"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gh := githubtest.NewServer(t)
			gh.SetPermission(repo, "ada", "read")
			gh.AddIssue(repo, 4, "Explain", "Please explain.", "ada")
			if tc.fail {
				gh.FailNext("GET /repos/{owner}/{repo}/collaborators/{username}/permission", 10, githubtest.Fault{Status: 502, Message: "bad gateway"})
			}
			j := newJob(t, gh, "900")
			j.agents("fail", `# Answer\n`)
			j.Event("issues", "issues.labeled.json", actiontest.Labeled(4, "optr", "ada"))
			outs, err := j.run()
			if err != nil || outs["status"] != "skipped" {
				t.Fatalf("Run: %v %v\n%s", err, outs, j.log.String())
			}
			cs := gh.Comments(repo, 4)
			if len(cs) != 1 || !strings.Contains(cs[0].Body, tc.want) {
				t.Fatalf("comments = %+v, want one with %q", cs, tc.want)
			}
		})
	}
}

// With OPTR_LEDGER_KEY the checkpoint output is a signed note the public
// key opens.
func TestLedgerCheckpointIsSignedWithTheKey(t *testing.T) {
	t.Parallel()
	skey, vkey, err := ledger.GenerateKey("optr/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	gh := githubtest.NewServer(t)
	j := newJob(t, gh, "810")
	j.Env["INPUT_COMMIT"] = "false"
	j.Env["INPUT_INTENT"] = "say hello"
	j.Env["INPUT_WORKFLOW"] = "nightly"
	j.Env["OPTR_LEDGER_KEY"] = skey
	j.agents("fail", `# Answer\n\nhello\n`)
	j.Event("workflow_dispatch", "workflow_dispatch.json", nil)
	outs, err := j.run()
	if err != nil || outs["status"] != "completed" {
		t.Fatalf("Run: %v %v\n%s", err, outs, j.log.String())
	}
	cp, signed, err := ledger.OpenCheckpoint([]byte(outs["ledger-checkpoint"]), vkey)
	if err != nil || !signed || cp.Size != 1 {
		t.Fatalf("checkpoint %+v signed %v: %v\n%s", cp, signed, err, outs["ledger-checkpoint"])
	}
	masked := false
	for _, line := range strings.Split(j.log.String(), "\n") {
		if strings.HasPrefix(line, "::add-mask::") {
			masked = masked || strings.Contains(line, skey)
		} else if strings.Contains(line, skey) {
			t.Fatalf("a job log line holds the signing key: %s", line)
		}
	}
	if !masked {
		t.Error("the signing key was not masked")
	}
}

// A delegate pipeline dispatched in Actions commits the spec folder with
// the ledger, reports OVERVIEW.md as its result, and shows the summary in
// the job summary.
func TestDispatchedDelegateRunCommitsTheSpecFolder(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	j := newJob(t, gh, "950")
	demotest.Copy(t, j.Workspace)
	j.Env["INPUT_CONFIG"] = "testdata/demo/optr.yml"
	j.Env["INPUT_PIPELINE"] = "research"
	j.Env["INPUT_WORKFLOW"] = "research"
	j.Env["INPUT_INTENT"] = "How do ledgers stay honest?"
	j.Event("workflow_dispatch", "workflow_dispatch.json", nil)
	outs, err := j.run()
	if err != nil || outs["status"] != "completed" {
		t.Fatalf("Run: %v %v\n%s", err, outs, j.log.String())
	}
	if outs["result-file"] != ".optr/specs/001_research/OVERVIEW.md" || outs["selected-agent"] != "" {
		t.Fatalf("outputs %v", outs)
	}
	files := gh.Files(repo, "optr-ledger")
	for _, want := range []string{".optr/specs/001_research/OVERVIEW.md", ".optr/specs/001_research/.invocation-plan.txt",
		".optr/specs/001_research/reports/001_hash-chains.md"} {
		if _, ok := files[want]; !ok {
			t.Errorf("%s was not committed", want)
		}
	}
	es := committedLedger(t, gh, "optr-ledger")
	if run := es[len(es)-1]; run.Fields["mode"] != "delegate" || run.Fields["spec"] != "specs/001_research" {
		t.Fatalf("run entry %v", run.Fields)
	}
	summary, _ := os.ReadFile(j.Env["GITHUB_STEP_SUMMARY"])
	if !strings.Contains(string(summary), "Research complete: 3/4 topics (75% success)") {
		t.Errorf("the job summary has no delegate summary:\n%s", summary)
	}
}

// When the branch's ledger has sealed segments, the workspace gets only
// the active one; the checkpoint (output and comment) is still the one of
// the whole committed ledger, made from the active segment and the newest
// sealed segment's tree file, not by hashing every segment.
func TestLedgerCheckpointWithSealedSegments(t *testing.T) {
	t.Parallel()
	var synthetic bytes.Buffer
	if _, err := ledger.WriteSynthetic(&synthetic, 30); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(synthetic.String(), "\n")
	sealed, active := strings.Join(lines[:20], ""), strings.Join(lines[20:], "")
	tree, err := ledger.SegmentTree(nil, []byte(sealed))
	if err != nil {
		t.Fatal(err)
	}
	seg := ".optr/ledger.d/" + ledger.SegmentName(1, 20)
	gh := githubtest.NewServer(t)
	gh.SetPermission(repo, "ada", "write")
	gh.AddIssue(repo, 7, "Explain the ledger", "Please explain.", "ada")
	gh.Commit(repo, "main", map[string]string{
		seg: sealed, strings.TrimSuffix(seg, ".jsonl") + ".merkle": string(tree), ".optr/ledger.jsonl": active,
	}, "earlier runs")
	skey, vkey, err := ledger.GenerateKey("optr/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	j := newJob(t, gh, "502")
	j.Env["OPTR_LEDGER_KEY"] = skey
	j.agents("fail", `# Answer\n\nAll good.\n`)
	j.Event("issues", "issues.labeled.json", actiontest.Labeled(7, "optr", "ada"))
	outs, err := j.run()
	if err != nil || outs["status"] != "completed" {
		t.Fatalf("Run: %v %v\n%s", err, outs, j.log.String())
	}
	// The whole committed ledger, put together in a clone's layout.
	clone := filepath.Join(t.TempDir(), "ledger.jsonl")
	for p, content := range map[string]string{seg: sealed, ".optr/ledger.jsonl": mustFile(t, gh, ".optr/ledger.jsonl")} {
		p = filepath.Join(filepath.Dir(clone), strings.TrimPrefix(p, ".optr/"))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := ledger.HeadCheckpoint(clone, ledger.Origin(repo), "")
	if err != nil {
		t.Fatal(err)
	}
	got, signed, err := ledger.OpenCheckpoint([]byte(outs["ledger-checkpoint"]), vkey)
	if err != nil || !signed || got.Text() != string(want) {
		t.Fatalf("ledger-checkpoint output (signed %v, %v):\n%s\nwant the whole ledger's:\n%s\n%s", signed, err, outs["ledger-checkpoint"], want, j.log.String())
	}
	if cp, _ := ledger.ParseCheckpoint(want); cp.Size != 31 {
		t.Errorf("checkpoint size %d, want 31", cp.Size)
	}
}

func mustFile(t *testing.T, gh *githubtest.Server, path string) string {
	t.Helper()
	s, ok := gh.File(repo, "main", path)
	if !ok {
		t.Fatalf("%s is not on main", path)
	}
	return s
}
