package commitback

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/optr-dev/optr/internal/gitdata/gitdatatest"
	"github.com/optr-dev/optr/internal/ledger"
)

// The ledger's checkpoint is made from what the commit-back committed (the
// active segment and the newest tree file): the same as the whole
// ledger's, signed when a key is given.
func TestCheckpoint(t *testing.T) {
	t.Parallel()
	seg, sealed, tree, active := segmentedSeed(t)
	r := gitdatatest.New()
	r.Commit("main", map[string]string{seg.Path: string(sealed), seg.TreePath(): string(tree), ledgerPath: string(active)}, "seed")
	res, err := Commit(t.Context(), r, Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("run")})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	whole := filepath.Join(dir, "ledger.jsonl")
	if err := os.WriteFile(whole, append(append([]byte(nil), sealed...), res.Ledger...), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := ledger.HeadCheckpoint(whole, ledger.Origin(repo), "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := res.Checkpoint(ledger.Origin(repo), "")
	if err != nil || string(got) != string(want) {
		t.Fatalf("Checkpoint = %s, %v; want the whole ledger's\n%s", got, err, want)
	}
	skey, vkey, err := ledger.GenerateKey(ledger.Origin(repo))
	if err != nil {
		t.Fatal(err)
	}
	signed, err := res.Checkpoint(ledger.Origin(repo), skey)
	if err != nil {
		t.Fatal(err)
	}
	cp, ok, err := ledger.OpenCheckpoint(signed, vkey)
	if err != nil || !ok || cp.Text() != string(want) {
		t.Errorf("the signed checkpoint opens as %q, signed %v, %v; want the checkpoint signed", cp.Text(), ok, err)
	}
	if _, err := res.Checkpoint(ledger.Origin(repo), "not a key"); err == nil {
		t.Error("a bad key signed")
	}
}
