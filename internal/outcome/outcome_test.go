package outcome

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
)

const repo = githubtest.DefaultRepo

var t0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// world is a fake GitHub, a client on it, and a ledger, with a clock the
// test moves.
type world struct {
	t      *testing.T
	now    time.Time
	gh     *githubtest.Server
	client *github.Client
	ledger string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, now: t0}
	w.gh = githubtest.NewServer(t, githubtest.WithClock(func() time.Time { return w.now }))
	w.gh.Commit(repo, "main", map[string]string{"greet.txt": "hello\n", "other.txt": "1\n"}, "base")
	c, err := github.New(t.Context(), github.Options{APIURL: w.gh.URL(), Token: "t", Repository: repo, HTTPClient: w.gh.Client(), DefaultBranch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	w.client = c
	w.ledger = filepath.Join(t.TempDir(), "ledger.jsonl")
	return w
}

// run records run id of workflow on pull request pr (iteration it), π*
// agent with model, costing usd (< 0: unknown).
func (w *world) run(id, workflow string, pr, it int, agent, model string, usd float64) {
	w.t.Helper()
	f := map[string]any{
		"selected": agent, "status": "completed", "mode": "select", "pull_request": int64(pr), "iteration": int64(it),
		"results": []any{map[string]any{"agent": agent, "model": model, "admissible": true}, map[string]any{"agent": "other", "model": "m2"}},
	}
	if usd >= 0 {
		f["cost_usd"] = usd
	}
	w.append(ledger.Draft{Kind: ledger.KindRun, Run: id, Workflow: workflow, Time: w.now, Fields: f})
}

func (w *world) append(drafts ...ledger.Draft) {
	w.t.Helper()
	if _, err := ledger.Append(w.ledger, drafts...); err != nil {
		w.t.Fatal(err)
	}
}

// open has run id of issue-7 open a pull request changing greet.txt and
// records it; it returns the number.
func (w *world) open(id string, usd float64) int {
	w.t.Helper()
	branch := "optr/issue-7/" + id
	w.gh.Commit(repo, branch, map[string]string{"greet.txt": "hello, " + id + "\n"}, "optr: change\n\nOptr-Run: "+id)
	n := w.gh.AddPull(repo, branch, "main", "optr: greet", githubtest.DefaultLogin)
	w.run(id, "issue-7", n, 1, "claude", "claude-sonnet-4-5", usd)
	return n
}

func (w *world) history() *History {
	w.t.Helper()
	h, err := Read(w.t.Context(), ledger.Local(w.ledger), w.now.Add(-SweepWindow))
	if err != nil {
		w.t.Fatal(err)
	}
	return h
}

// record appends outcomes to the ledger, as the Action does.
func (w *world) record(os ...Outcome) {
	w.t.Helper()
	for _, o := range os {
		w.append(o.Draft(w.now))
	}
}

func TestReadGathersAPullRequestsRuns(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	n := w.open("100-1", 0.25)
	w.now = w.now.Add(time.Hour)
	w.run("101-1", "issue-7", n, 2, "codex", "gpt-5", 0.5)
	w.run("102-1", "issue-8", 0, 0, "codex", "gpt-5", 9) // on no pull request
	m := w.open("103-1", -1)
	w.run("104-1", "issue-7", m, 2, "codex", "gpt-5", 0.5)
	h := w.history()
	if len(h.Pulls) != 2 {
		t.Fatalf("pulls %+v", h.Pulls)
	}
	p := h.Pulls[n]
	if p.Run != "100-1" || p.Workflow != "issue-7" || p.Agent != "claude" || p.Model != "claude-sonnet-4-5" || p.Iterations != 2 || p.Cost() == nil || *p.Cost() != 0.75 {
		t.Errorf("pull %d = %+v (cost %v)", n, p, p.Cost())
	}
	if q := h.Pulls[m]; q.Iterations != 2 || q.Cost() != nil {
		t.Errorf("pull %d's cost is %v: one of its runs has no known cost, so neither has the change", m, q.Cost())
	}
}

func TestDraftDecodes(t *testing.T) {
	t.Parallel()
	usd := 0.75
	o := Outcome{Run: "100-1", Workflow: "issue-7", PullRequest: 12, Outcome: Merged, Agent: "claude", Model: "m", By: "octocat", ByType: "User",
		At: t0, Elapsed: 3 * time.Hour, Iterations: 2, CostUSD: &usd, Commit: strings.Repeat("a", 40), Source: FromEvent}
	es, err := ledger.Chain(ledger.Head{}, o.Draft(t0.Add(time.Minute)))
	if err != nil {
		t.Fatal(err)
	}
	line, _ := es[0].Line()
	got, ok := Decode(ledger.WindowEntry{Kind: ledger.KindOutcome, Run: "100-1", Workflow: "issue-7", Line: line})
	if !ok {
		t.Fatalf("Decode(%s) refused it", line)
	}
	if diff := cmp.Diff(o, got); diff != "" {
		t.Errorf("Decode (-drafted +decoded):\n%s", diff)
	}
	o.Outcome, o.How, o.CostUSD = Reverted, ByPatch, nil
	es, _ = ledger.Chain(ledger.Head{}, o.Draft(t0))
	line, _ = es[0].Line()
	if !strings.Contains(string(line), `"after_merge_ms":10800000`) || strings.Contains(string(line), "change_cost_usd") {
		t.Errorf("a revert's line: %s", line)
	}
	if _, ok := Decode(ledger.WindowEntry{Kind: ledger.KindOutcome, Line: []byte(`{"outcome":"lost"}`)}); ok {
		t.Error("an outcome optr does not write was decoded")
	}
}
