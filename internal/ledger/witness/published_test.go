package witness

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/progress"
	"github.com/optr-dev/optr/internal/status"
)

// finalComment is optr's final progress comment for a run whose last
// entry is head, with the ledger's checkpoint when withCheckpoint is set,
// as the Action renders it.
func finalComment(t *testing.T, r *repo, run string, withCheckpoint bool) string {
	t.Helper()
	head, err := ledger.TailHead(r.path)
	if err != nil {
		t.Fatal(err)
	}
	v := progress.View{RunID: run, Workflow: "issue-1", Status: status.Completed, Selected: "a", LedgerHash: head.Hash, Commit: strings.Repeat("c", 40)}
	if withCheckpoint {
		cp, err := ledger.HeadCheckpoint(r.path, "optr/octo/repo", "")
		if err != nil {
			t.Fatal(err)
		}
		v.LedgerCheckpoint = string(cp)
	}
	return progress.Comment(v)
}

// TestPublishedHeads: the heads in optr's final comments (with a
// checkpoint or only the hash) hold for the ledger they were published
// from and for its later growth, and not for a consistent rewrite of it,
// which is named by the comment.
func TestPublishedHeads(t *testing.T) {
	t.Parallel()
	r := honest(t, 6)
	var pubs []Published
	for i, withCP := range []bool{true, false} {
		body := finalComment(t, r, fmt.Sprintf("%d-1", i), withCP)
		p, ok, err := ParsePublished(fmt.Sprintf("https://github.com/o/r/issues/1#issuecomment-%d", i), body)
		if err != nil || !ok || (p.Checkpoint != nil) != withCP {
			t.Fatalf("ParsePublished(%s) = %+v, %v, %v", body, p, ok, err)
		}
		pubs = append(pubs, p)
		r.append(100+i, 2)
	}
	check := func() error {
		ts, err := ledger.VerifyTree(r.path, PublishedSizes(pubs)...)
		if err != nil {
			t.Fatal(err)
		}
		return CheckPublished(r.path, ts, pubs)
	}
	if err := check(); err != nil {
		t.Fatalf("the honest ledger: %v", err)
	}
	forcePush(t, r, 3, 20)
	err := check()
	var werr *Error
	if !errors.As(err, &werr) || werr.Where != "comment "+pubs[0].Where || !strings.Contains(werr.Reason, "rewritten") {
		t.Fatalf("the rewritten ledger: %v", err)
	}
	// A comment without a checkpoint is caught by its hash alone.
	err = CheckPublished(r.path, ledger.TreeSummary{}, pubs[1:])
	if !errors.As(err, &werr) || !strings.Contains(werr.Reason, "no entry of the ledger") {
		t.Fatalf("the rewritten ledger, hash only: %v", err)
	}
	// A comment still running published nothing; a mangled checkpoint is named.
	if _, ok, err := ParsePublished("u", progress.Comment(progress.View{RunID: "9-1", Status: status.Running})); ok || err != nil {
		t.Errorf("a running comment published a head: %v %v", ok, err)
	}
	mangled := strings.Replace(finalComment(t, r, "8-1", true), "optr/octo/repo\n", "optr/octo/repo\nx\n", 1)
	if _, _, err := ParsePublished("u", mangled); !errors.As(err, &werr) {
		t.Errorf("a mangled checkpoint: %v", err)
	}
}
