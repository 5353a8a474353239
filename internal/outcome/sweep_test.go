package outcome

import (
	"strings"
	"testing"
	"time"
)

// A closed pull request's outcome comes from what GitHub reports of it:
// merged by whom after how long, closed by whom; a bot's merge is a merge
// like any other, said as a bot's. What is not optr's, is open again, or
// is recorded already records nothing, and says why.
func TestCloseRecordsWhatGitHubReports(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	merged := w.open("100-1", 0.25)
	byBot := w.open("101-1", 0.5)
	closed := w.open("102-1", -1)
	reopened := w.open("103-1", 1)
	w.gh.Commit(repo, "feature", map[string]string{"x.txt": "x"}, "a person's change")
	theirs := w.gh.AddPull(repo, "feature", "main", "a person's", "octocat")
	w.gh.Commit(repo, "optr/issue-9/999-1", map[string]string{"y.txt": "y"}, "a branch named like optr's")
	unknown := w.gh.AddPull(repo, "optr/issue-9/999-1", "main", "not in the ledger", "octocat")
	fork := w.gh.AddForkPull(repo, "mallory/octo-repo", "optr/issue-7/100-1", strings.Repeat("1", 40), "main", "fork", "mallory")

	w.now = w.now.Add(3 * time.Hour)
	commit := w.gh.MergePull(repo, merged, "maintainer", "User")
	w.gh.MergePull(repo, byBot, "mergify[bot]", "Bot")
	w.gh.ClosePullBy(repo, closed, "maintainer", "User")
	w.gh.ClosePullBy(repo, reopened, "maintainer", "User")
	w.gh.ReopenPull(repo, reopened)
	w.gh.ClosePull(repo, theirs)
	w.gh.ClosePull(repo, unknown)
	w.gh.ClosePull(repo, fork)

	h := w.history()
	get := func(n int) (Outcome, string) {
		t.Helper()
		o, why, err := Close(t.Context(), w.client, h, n, FromEvent)
		if err != nil {
			t.Fatal(err)
		}
		return o, why
	}
	if o, why := get(merged); why != "" || o.Outcome != Merged || o.By != "maintainer" || o.ByType != "User" || o.Elapsed != 3*time.Hour ||
		o.Commit != commit || o.Run != "100-1" || o.Agent != "claude" || o.Iterations != 1 || o.CostUSD == nil || *o.CostUSD != 0.25 || o.Source != FromEvent {
		t.Errorf("merged: %+v, %q", o, why)
	}
	if o, why := get(merged); why == "" || !strings.Contains(why, "records already") {
		t.Errorf("merged, asked again: %+v, %q; want nothing", o, why)
	}
	if o, _ := get(byBot); o.Outcome != Merged || o.By != "mergify[bot]" || o.ByType != "Bot" || !strings.Contains(o.Describe(), "(a bot)") {
		t.Errorf("merged by a bot: %+v (%s)", o, o.Describe())
	}
	if o, _ := get(closed); o.Outcome != Closed || o.By != "maintainer" || o.Commit != "" || o.CostUSD != nil {
		t.Errorf("closed: %+v", o)
	}
	for _, tc := range []struct {
		n    int
		want string
	}{
		{reopened, "reopened"},
		{theirs, "not a pull request optr opened"},
		{fork, "not a pull request optr opened"},
		{unknown, "holds no run 999-1"},
	} {
		if o, why := get(tc.n); o.Outcome != "" || !strings.Contains(why, tc.want) {
			t.Errorf("#%d: %+v, %q; want nothing because %q", tc.n, o, why, tc.want)
		}
	}
}

// Without the pull_request.closed trigger, the next run finds what became
// of optr's pull requests: with nothing pending it asks GitHub nothing;
// each merge and close is found once; the merge that a later commit
// reverts (git's message) and the one whose files a hand-made commit puts
// back (the patch) are found reverted, once; a revert after 30 days is
// not one; a change kept is not reverted.
func TestSweep(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := t.Context()
	sweep := func() ([]Outcome, []string) {
		t.Helper()
		out, notes, err := Sweep(ctx, w.client, w.history(), w.now)
		if err != nil {
			t.Fatal(err)
		}
		w.record(out...)
		return out, notes
	}
	w.gh.ResetRequests()
	if out, _ := sweep(); len(out) != 0 || len(w.gh.Requests()) != 0 {
		t.Fatalf("an empty ledger: %+v, %d requests", out, len(w.gh.Requests()))
	}

	byMessage := w.open("100-1", 0.1)
	byPatch := w.open("101-1", 0.1)
	late := w.open("102-1", 0.1)
	kept := w.open("103-1", 0.1)
	closed := w.open("104-1", 0.1)
	stillOpen := w.open("105-1", 0.1)
	w.gh.ResetRequests()
	if out, _ := sweep(); len(out) != 0 {
		t.Fatalf("nothing closed yet: %+v", out)
	}
	if got := w.gh.Counts(); len(got) != 1 || got["GET /repos/{owner}/{repo}/pulls"] != 1 {
		t.Errorf("requests with pull requests pending and none closed: %v; want one listing", got)
	}

	// byPatch's change is to other.txt, so the others' merges on
	// greet.txt do not touch it.
	w.gh.Commit(repo, "optr/issue-7/101-1", map[string]string{"greet.txt": "hello\n", "other.txt": "2\n"}, "change other.txt instead")
	w.now = w.now.Add(time.Hour)
	mergeOf := map[int]string{}
	for _, n := range []int{byMessage, byPatch, late, kept} {
		mergeOf[n] = w.gh.MergePull(repo, n, "maintainer", "User")
		w.now = w.now.Add(time.Minute)
	}
	w.gh.ClosePullBy(repo, closed, "maintainer", "User")
	out, _ := sweep()
	got := map[int]string{}
	for _, o := range out {
		got[o.PullRequest] = o.Outcome
		if o.Source != FromAPI {
			t.Errorf("#%d's outcome is from %s, want %s", o.PullRequest, o.Source, FromAPI)
		}
	}
	want := map[int]string{byMessage: Merged, byPatch: Merged, late: Merged, kept: Merged, closed: Closed}
	if len(got) != len(want) || got[stillOpen] != "" {
		t.Fatalf("first sweep after the merges: %v; want %v", got, want)
	}
	for n, o := range want {
		if got[n] != o {
			t.Errorf("#%d: %s, want %s", n, got[n], o)
		}
	}
	if out, _ := sweep(); len(out) != 0 {
		t.Errorf("a second sweep recorded %+v again", out)
	}

	// Two days on: git revert of byMessage's merge; byPatch's file put
	// back by hand; kept's file changed further.
	w.now = w.now.Add(48 * time.Hour)
	w.gh.Commit(repo, "main", map[string]string{"greet.txt": "hello\n"}, "Revert \"optr: greet (#1)\"\n\nThis reverts commit "+mergeOf[byMessage][:12]+".\n")
	w.now = w.now.Add(time.Hour)
	w.gh.Commit(repo, "main", map[string]string{"other.txt": "1\n"}, "other.txt: back to 1, 2 broke the build")
	out, _ = sweep()
	reverts := map[int]Outcome{}
	for _, o := range out {
		reverts[o.PullRequest] = o
	}
	if o := reverts[byMessage]; o.Outcome != Reverted || o.How != ByMessage || o.By != "Octo Seed" || o.Elapsed < 48*time.Hour || o.Commit == mergeOf[byMessage] {
		t.Errorf("byMessage: %+v", o)
	}
	if o := reverts[byPatch]; o.Outcome != Reverted || o.How != ByPatch || !strings.Contains(w.commitMessage(o.Commit), "back to 1") {
		t.Errorf("byPatch: %+v", o)
	}
	if len(reverts) != 2 {
		t.Errorf("reverted: %+v; want byMessage and byPatch only", reverts)
	}
	if out, _ := sweep(); len(out) != 0 {
		t.Errorf("the reverts were recorded again: %+v", out)
	}

	// 31 days after the merges: late is reverted, too late to count.
	w.now = w.now.Add(29 * 24 * time.Hour)
	w.gh.Commit(repo, "main", map[string]string{"greet.txt": "hello\n"}, "Revert\n\nThis reverts commit "+mergeOf[late]+".\n")
	if out, _ := sweep(); len(out) != 0 {
		t.Errorf("a revert 31 days after the merge was recorded: %+v", out)
	}
}

func (w *world) commitMessage(sha string) string {
	for _, c := range w.gh.Log(repo, "main") {
		if c.SHA == sha {
			return c.Message
		}
	}
	return ""
}
