package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
)

// ledgerWorkspace makes a working directory with a ledger of n entries of
// two kinds and two workflows.
func ledgerWorkspace(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	path := filepath.Join(".optr", "ledger.jsonl")
	ledgerWorkspaceHere(t, path, n)
	return path
}

// ledgerWorkspaceHere appends ledgerWorkspace's first n entries to the
// ledger at path.
func ledgerWorkspaceHere(t *testing.T, path string, n int) {
	t.Helper()
	for i := range n {
		kind, wf := ledger.KindRun, "issue-1"
		if i%3 == 2 {
			kind, wf = ledger.KindEscalation, "issue-2"
		}
		d := ledger.Draft{Kind: kind, Run: fmt.Sprintf("%d-1", i+1), Workflow: wf,
			Time: time.Date(2026, 3, 1, 0, 0, i, i*1000, time.UTC), Fields: map[string]any{"selected": "a"}}
		if _, err := ledger.Append(path, d); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLedgerCheckpointAndVerify(t *testing.T) {
	path := ledgerWorkspace(t, 9)
	cp := optr(t, "ledger", "checkpoint")
	if cp.code != 0 || !strings.HasPrefix(cp.stdout, "optr/local\n9\n") {
		t.Fatalf("checkpoint: exit %d, %q, %q", cp.code, cp.stdout, cp.stderr)
	}
	os.WriteFile("cp9", []byte(cp.stdout), 0o644)

	// Signed, with a key pair from keygen.
	kg := optr(t, "ledger", "keygen", "--key", "k", "--origin", "optr/o/r")
	if kg.code != 0 || !strings.HasPrefix(kg.stdout, "optr/o/r+") {
		t.Fatalf("keygen: exit %d, %q, %q", kg.code, kg.stdout, kg.stderr)
	}
	if again := optr(t, "ledger", "keygen", "--key", "k"); again.code != 2 {
		t.Errorf("keygen overwrote a key: exit %d", again.code)
	}
	signed := optr(t, "ledger", "checkpoint", "--key", "k", "--origin", "optr/o/r")
	if signed.code != 0 || !strings.Contains(signed.stdout, "\n\n— optr/o/r ") {
		t.Fatalf("signed checkpoint: exit %d, %q, %q", signed.code, signed.stdout, signed.stderr)
	}
	os.WriteFile("cp9s", []byte(signed.stdout), 0o644)

	// The ledger grows; both old checkpoints still hold.
	ledger.Append(path, ledger.Draft{Kind: "run", Run: "10-1", Time: time.Now()})
	v := optr(t, "ledger", "verify", "--checkpoint", "cp9", "--checkpoint", "cp9s")
	if v.code != 0 || !strings.Contains(v.stdout, "10 entries") || strings.Count(v.stdout, "holds") != 2 || !strings.Contains(v.stderr, "not checked") {
		t.Errorf("verify --checkpoint: exit %d, %q, %q", v.code, v.stdout, v.stderr)
	}
	if v := optr(t, "ledger", "verify", "--checkpoint", "cp9s", "--key-public", "k.pub"); v.code != 0 {
		t.Errorf("verify --checkpoint --key-public: exit %d, %q, %q", v.code, v.stdout, v.stderr)
	}
	// With a public key, an unsigned checkpoint (a stripped signature) is refused.
	if v := optr(t, "ledger", "verify", "--checkpoint", "cp9", "--key-public", "k.pub"); v.code != 1 || !strings.Contains(v.stderr, "not signed") {
		t.Errorf("verify of an unsigned checkpoint with a key: exit %d, %q", v.code, v.stderr)
	}

	// Another ledger's checkpoint, a truncated ledger, a forged signature.
	other := strings.Replace(cp.stdout, "\n9\n", "\n8\n", 1)
	os.WriteFile("other", []byte(other), 0o644)
	if v := optr(t, "ledger", "verify", "--checkpoint", "other"); v.code != 1 || !strings.Contains(v.stderr, "another ledger") {
		t.Errorf("verify of another ledger's checkpoint: exit %d, %q", v.code, v.stderr)
	}
	os.WriteFile("forged", []byte(strings.Replace(signed.stdout, "\n9\n", "\n8\n", 1)), 0o644)
	if v := optr(t, "ledger", "verify", "--checkpoint", "forged", "--key-public", "k.pub"); v.code != 1 || !strings.Contains(v.stderr, "signature") {
		t.Errorf("verify of a forged signed checkpoint: exit %d, %q", v.code, v.stderr)
	}
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	os.WriteFile(path, []byte(strings.Join(lines[:5], "")), 0o644)
	if v := optr(t, "ledger", "verify", "--checkpoint", "cp9"); v.code != 1 || !strings.Contains(v.stderr, "only 5 entries") {
		t.Errorf("verify of a truncated ledger: exit %d, %q", v.code, v.stderr)
	}
}

func TestLedgerProve(t *testing.T) {
	ledgerWorkspace(t, 12)
	p := optr(t, "ledger", "prove", "--seq", "5")
	if p.code != 0 {
		t.Fatalf("prove: exit %d, %q", p.code, p.stderr)
	}
	os.WriteFile("proof.json", []byte(p.stdout), 0o644)
	if v := optr(t, "ledger", "verify", "--proof", "proof.json"); v.code != 0 || !strings.Contains(v.stdout, "entry 5 is in the ledger's head") {
		t.Errorf("verify --proof: exit %d, %q, %q", v.code, v.stdout, v.stderr)
	}
	os.WriteFile("bad.json", []byte(strings.Replace(p.stdout, `\"seq\":5`, `\"seq\":6`, 1)), 0o644)
	if v := optr(t, "ledger", "verify", "--proof", "bad.json"); v.code != 1 {
		t.Errorf("verify of a changed proof: exit %d, %q", v.code, v.stderr)
	}
	for _, args := range [][]string{{"prove"}, {"prove", "--seq", "13"}, {"show", "--seq", "1"}} {
		if v := optr(t, append([]string{"ledger"}, args...)...); v.code == 0 {
			t.Errorf("ledger %v succeeded", args)
		}
	}
}

func TestLedgerShowFilters(t *testing.T) {
	ledgerWorkspace(t, 9)
	all := optr(t, "ledger", "show")
	rows := strings.Split(strings.TrimSpace(all.stdout), "\n")
	if all.code != 0 || len(rows) != 10 || !strings.HasPrefix(strings.TrimSpace(rows[0]), "SEQ") {
		t.Fatalf("show: exit %d, %d rows:\n%s", all.code, len(rows), all.stdout)
	}
	// The time column keeps its place whatever fraction the times have.
	col := strings.Index(rows[1], "2026-03-01 00:00:00Z")
	for _, r := range rows[1:] {
		if strings.Index(r, "2026-03-01 00:00:0") != col {
			t.Errorf("the time column moved:\n%s", all.stdout)
			break
		}
	}
	for _, tt := range []struct {
		args []string
		runs []string
	}{
		{[]string{"--kind", "escalation"}, []string{"3-1", "6-1", "9-1"}},
		{[]string{"--workflow", "issue-1", "--last", "2"}, []string{"7-1", "8-1"}},
		{[]string{"--last", "1"}, []string{"9-1"}},
	} {
		got := optr(t, append([]string{"ledger", "show"}, tt.args...)...)
		rows := strings.Split(strings.TrimSpace(got.stdout), "\n")[1:]
		var runs []string
		for _, r := range rows {
			runs = append(runs, strings.Fields(r)[4])
		}
		if fmt.Sprint(runs) != fmt.Sprint(tt.runs) {
			t.Errorf("show %v: runs %v, want %v\n%s", tt.args, runs, tt.runs, got.stdout)
		}
	}
}
