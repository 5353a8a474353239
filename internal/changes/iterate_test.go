package changes

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/testkit/gittest"
)

// greetPatch is a patch from baseFiles that rewrites greet.txt.
func greetPatch(t *testing.T) []byte {
	t.Helper()
	dir := gittest.Repo(t, baseFiles)
	gittest.Sh(t, dir, "echo 'hello, world' > greet.txt")
	return []byte(gittest.Sh(t, dir, "git diff --binary") + "\n")
}

// An iteration pushes one commit on the pull request's branch, whose
// parent is the tip the agents started from; a branch moved by a human
// meanwhile gets the change on its new tip, or, when the change does not
// apply there, nothing, with git's reason; a push never moves the branch
// back.
func TestPushIteration(t *testing.T) {
	t.Parallel()
	_, s, gh := setup(t)
	ctx := t.Context()
	patch := greetPatch(t)
	from := s.Commit(repoName, "optr/w/run-1", map[string]string{"bye.txt": "goodbye\n"}, Attribution{Run: "run-1", Agent: "coder"}.Message("optr's first change", ""))

	got, err := PushIteration(ctx, gh, patch, Iteration{Branch: "optr/w/run-1", From: from, Message: Attribution{Run: "run-2", Agent: "coder", Model: "m"}.Message("second", "")})
	if err != nil || got.Parent != from || got.Rebased || s.Head(repoName, "optr/w/run-1") != got.Commit {
		t.Fatalf("PushIteration = %+v, %v; head %s", got, err, s.Head(repoName, "optr/w/run-1"))
	}
	if f, _ := s.File(repoName, "optr/w/run-1", "greet.txt"); f != "hello, world\n" {
		t.Errorf("greet.txt = %q", f)
	}
	if log := s.Log(repoName, "optr/w/run-1"); !HasTrailer(log[0].Message) || log[1].SHA != from {
		t.Errorf("log = %+v", log)
	}

	// A human pushes elsewhere: the next change goes on their commit.
	human := s.Commit(repoName, "optr/w/run-1", map[string]string{"notes.txt": "n\n"}, "human")
	again, err := PushIteration(ctx, gh, []byte(strings.ReplaceAll(string(patch), "hello, world", "hi")), Iteration{Branch: "optr/w/run-1", From: got.Commit, Message: "third"})
	if err == nil {
		t.Fatalf("a patch made from another base applied: %+v", again)
	}
	if !errors.Is(err, ErrNotApplicable) || !strings.Contains(err.Error(), "moved from") || !strings.Contains(err.Error(), "patch does not apply") {
		t.Errorf("conflict: %v; want ErrNotApplicable with git's reason", err)
	}
	if s.Head(repoName, "optr/w/run-1") != human {
		t.Error("a change that does not apply moved the branch")
	}
}

// A human's push onto the branch after the agents started is kept: the
// change is carried onto it.
func TestPushIterationRebases(t *testing.T) {
	t.Parallel()
	_, s, gh := setup(t)
	ctx := t.Context()
	from := s.Commit(repoName, "optr/w/run-1", map[string]string{"bye.txt": "goodbye\n"}, "first")
	human := s.Commit(repoName, "optr/w/run-1", map[string]string{"notes.txt": "n\n"}, "human")
	got, err := PushIteration(ctx, gh, greetPatch(t), Iteration{Branch: "optr/w/run-1", From: from, Message: "second"})
	if err != nil || !got.Rebased || got.Parent != human {
		t.Fatalf("PushIteration = %+v, %v; want a rebase onto %s", got, err, human)
	}
	files := s.Files(repoName, "optr/w/run-1")
	if files["notes.txt"] != "n\n" || files["greet.txt"] != "hello, world\n" || files["bye.txt"] != "goodbye\n" {
		t.Errorf("files = %v", files)
	}
}

// A push that loses the compare-and-swap to another push is tried again
// from the new tip, never forced.
func TestPushIterationRetriesALostRace(t *testing.T) {
	t.Parallel()
	_, s, gh := setup(t)
	from := s.Commit(repoName, "optr/w/run-1", map[string]string{"bye.txt": "goodbye\n"}, "first")
	var racer string
	s.BeforeNext("PATCH /repos/{owner}/{repo}/git/refs/{ref}", func() {
		racer = s.Commit(repoName, "optr/w/run-1", map[string]string{"notes.txt": "n\n"}, "racer")
	})
	got, err := PushIteration(t.Context(), gh, greetPatch(t), Iteration{Branch: "optr/w/run-1", From: from, Message: "second"})
	if err != nil || got.Parent != racer || s.Head(repoName, "optr/w/run-1") != got.Commit {
		t.Fatalf("PushIteration = %+v, %v; want it on the racer's %s", got, err, racer)
	}
	if n := s.Count("PATCH /repos/{owner}/{repo}/git/refs/{ref}"); n != 2 {
		t.Errorf("%d ref updates, want 2", n)
	}
}

func TestParseBranch(t *testing.T) {
	t.Parallel()
	if w, r, ok := ParseBranch("optr/issue-7/123-1"); !ok || w != "issue-7" || r != "123-1" {
		t.Errorf("ParseBranch = %q, %q, %v", w, r, ok)
	}
	for _, b := range []string{"main", "optr/issue-7", "optr/issue-7/1/2", "optr/../1", "feature/optr/x/1", "optr/W/1"} {
		if _, _, ok := ParseBranch(b); ok {
			t.Errorf("ParseBranch(%q) accepted", b)
		}
	}
}

// A commit's message ends with the trailers git reads: Assisted-by names
// the agent and the model (unknown when none is known), Optr-Run the run;
// a name cannot add a trailer of its own.
func TestAttributionTrailers(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a    Attribution
		want string
	}{
		{Attribution{Run: "123-1", Agent: "codex", Model: "gpt-5-codex"}, "subject\n\nbody\n\nAssisted-by: codex:gpt-5-codex\nOptr-Run: 123-1\n"},
		{Attribution{Run: "123-1", Agent: "claude-code"}, "subject\n\nbody\n\nAssisted-by: claude-code:unknown\nOptr-Run: 123-1\n"},
		{Attribution{Run: "123-1", Agent: "x\nSigned-off-by: mallory", Model: "m 1"}, "subject\n\nbody\n\nAssisted-by: x-Signed-off-by:-mallory:m-1\nOptr-Run: 123-1\n"},
	} {
		msg := tt.a.Message("subject", "body")
		if msg != tt.want {
			t.Errorf("%+v: message %q, want %q", tt.a, msg, tt.want)
		}
		if !HasTrailer(msg) {
			t.Errorf("HasTrailer(%q) is false", msg)
		}
		// git reads exactly these two trailers.
		cmd := exec.Command("git", "interpret-trailers", "--parse")
		cmd.Stdin = strings.NewReader(msg)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git interpret-trailers: %v", err)
		}
		if want := tt.want[strings.Index(tt.want, "Assisted-by"):]; string(out) != want {
			t.Errorf("git reads the trailers %q, want %q", out, want)
		}
	}
}
