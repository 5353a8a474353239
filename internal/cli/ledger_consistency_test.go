package cli

import (
	"crypto/rand"
	"os"
	"strings"
	"testing"
	"time"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"github.com/optr-dev/optr/internal/ledger"
)

// TestLedgerProveFromAndVerifyConsistency: the consistency proof that
// `prove --from` prints checks with `verify --consistency` between the two
// checkpoints (files as `echo` leaves them, a blank line after), and is
// refused swapped, tampered, or against a checkpoint of a rewritten ledger.
func TestLedgerProveFromAndVerifyConsistency(t *testing.T) {
	path := ledgerWorkspace(t, 9)
	old := optr(t, "ledger", "checkpoint")
	os.WriteFile("old", []byte(old.stdout+"\n"), 0o644)
	for i := range 4 {
		ledger.Append(path, ledger.Draft{Kind: "run", Run: "later-" + string(rune('a'+i)), Time: time.Now()})
	}
	now := optr(t, "ledger", "checkpoint")
	os.WriteFile("new", []byte(now.stdout+"\n"), 0o644)
	p := optr(t, "ledger", "prove", "--from", "9")
	if p.code != 0 || strings.Count(p.stdout, "\n") < 1 || !strings.Contains(p.stderr, "from size 9 to 13") {
		t.Fatalf("prove --from 9: exit %d, %q, %q", p.code, p.stdout, p.stderr)
	}
	os.WriteFile("proof", []byte(p.stdout+"\n"), 0o644)
	v := optr(t, "ledger", "verify", "--consistency", "proof", "--checkpoint", "old", "--checkpoint", "new")
	if v.code != 0 || !strings.Contains(v.stdout, "checkpoint new (optr/local, 13 entries) extends old (9 entries)") {
		t.Fatalf("verify --consistency: exit %d, %q, %q", v.code, v.stdout, v.stderr)
	}
	if v := optr(t, "ledger", "verify", "--consistency", "proof", "--checkpoint", "new", "--checkpoint", "old"); v.code != 1 || !strings.Contains(v.stderr, "give the older checkpoint first") {
		t.Errorf("swapped checkpoints: exit %d, %q", v.code, v.stderr)
	}
	tampered := []byte(p.stdout)
	tampered[0] ^= 'A' ^ 'B'
	os.WriteFile("tampered", tampered, 0o644)
	if v := optr(t, "ledger", "verify", "--consistency", "tampered", "--checkpoint", "old", "--checkpoint", "new"); v.code != 1 {
		t.Errorf("a tampered proof: exit %d, %q", v.code, v.stderr)
	}

	// The same ledger rewritten at entry 3 and grown to 13: its own
	// proof from 9 does not connect the honest checkpoint of 9 to it.
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	os.WriteFile(path, []byte(strings.Join(lines[:2], "")), 0o644)
	for i := range 11 {
		ledger.Append(path, ledger.Draft{Kind: "run", Run: "rewritten-" + string(rune('a'+i)), Time: time.Now()})
	}
	forged := optr(t, "ledger", "checkpoint")
	os.WriteFile("forged", []byte(forged.stdout), 0o644)
	fp := optr(t, "ledger", "prove", "--from", "9")
	os.WriteFile("fproof", []byte(fp.stdout), 0o644)
	if v := optr(t, "ledger", "verify", "--consistency", "fproof", "--checkpoint", "old", "--checkpoint", "forged"); v.code != 1 || !strings.Contains(v.stderr, "rewritten") {
		t.Errorf("a rewritten ledger's proof: exit %d, %q", v.code, v.stderr)
	}

	for _, args := range [][]string{
		{"prove", "--from", "14"},
		{"prove", "--from", "-1"},
		{"prove", "--from", "1", "--seq", "1"},
		{"verify", "--consistency", "proof", "--checkpoint", "old"},
		{"verify", "--witness-quorum", "1", "--checkpoint", "old"},
		{"verify", "--repo", "o/r"},
	} {
		if r := optr(t, append([]string{"ledger"}, args...)...); r.code != 2 {
			t.Errorf("ledger %v: exit %d, want 2 (%q)", args, r.code, r.stderr)
		}
	}
}

// cosign adds a C2SP cosignature/v1 by a new witness key named name to a
// signed checkpoint, as a witness does (transparency-dev/formats), and
// returns the result and the witness's verifier key.
func cosign(t *testing.T, signed []byte, logVKey, name string) ([]byte, string) {
	t.Helper()
	skey, vkey, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := fnote.NewSignerForCosignatureV1(skey)
	if err != nil {
		t.Fatal(err)
	}
	lv, err := note.NewVerifier(logVKey)
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open(signed, note.VerifierList(lv))
	if err != nil {
		t.Fatal(err)
	}
	n.Sigs = append(n.Sigs, n.UnverifiedSigs...)
	n.UnverifiedSigs = nil
	out, err := note.Sign(n, s)
	if err != nil {
		t.Fatal(err)
	}
	wkey, err := fnote.VKeyToCosignatureV1(vkey)
	if err != nil {
		t.Fatal(err)
	}
	return out, wkey
}

// TestLedgerVerifyWitnessKey: a checkpoint cosigned by a witness passes
// `verify --witness-key` with that witness's key and is refused with
// another witness's key, or a quorum it does not reach; a key that is not
// a witness key is a usage error.
func TestLedgerVerifyWitnessKey(t *testing.T) {
	ledgerWorkspace(t, 5)
	if kg := optr(t, "ledger", "keygen", "--key", "k"); kg.code != 0 {
		t.Fatalf("keygen: %q", kg.stderr)
	}
	signed := optr(t, "ledger", "checkpoint", "--key", "k")
	vkey, _ := os.ReadFile("k.pub")
	once, w1 := cosign(t, []byte(signed.stdout), strings.TrimSpace(string(vkey)), "witness.example/w1")
	twice, w2 := cosign(t, once, strings.TrimSpace(string(vkey)), "witness.example/w2")
	_, other := cosign(t, []byte(signed.stdout), strings.TrimSpace(string(vkey)), "witness.example/w3")
	os.WriteFile("once", once, 0o644)
	os.WriteFile("twice", append(twice, '\n'), 0o644)

	ok := func(args ...string) {
		t.Helper()
		r := optr(t, append([]string{"ledger", "verify", "--key-public", "k.pub"}, args...)...)
		if r.code != 0 || !strings.Contains(r.stdout, "cosigned by") {
			t.Errorf("verify %v: exit %d, %q, %q", args, r.code, r.stdout, r.stderr)
		}
	}
	refused := func(code int, says string, args ...string) {
		t.Helper()
		r := optr(t, append([]string{"ledger", "verify", "--key-public", "k.pub"}, args...)...)
		if r.code != code || !strings.Contains(r.stderr, says) {
			t.Errorf("verify %v: exit %d, %q; want %d saying %q", args, r.code, r.stderr, code, says)
		}
	}
	ok("--checkpoint", "once", "--witness-key", w1)
	ok("--checkpoint", "twice", "--witness-key", w1, "--witness-key", w2)
	ok("--checkpoint", "once", "--witness-key", w1, "--witness-key", w2, "--witness-quorum", "1")
	refused(1, "none of them", "--checkpoint", "once", "--witness-key", other)
	refused(1, "only witness.example/w1", "--checkpoint", "once", "--witness-key", w1, "--witness-key", w2)
	refused(2, "not a note verifier key", "--checkpoint", "once", "--witness-key", "witness.example/w1+bad")
}

// TestKeygenNamesTheKeyAfterTheOrigin: keygen names the key after
// GITHUB_REPOSITORY's origin when --origin is not given, and a key whose
// name is not the checkpoint's origin does not sign it.
func TestKeygenNamesTheKeyAfterTheOrigin(t *testing.T) {
	ledgerWorkspace(t, 3)
	kg := optrEnv(t, map[string]string{"GITHUB_REPOSITORY": "octo/repo"}, "ledger", "keygen", "--key", "repo.key")
	if kg.code != 0 || !strings.HasPrefix(kg.stdout, "optr/octo/repo+") {
		t.Fatalf("keygen with GITHUB_REPOSITORY: exit %d, %q, %q", kg.code, kg.stdout, kg.stderr)
	}
	if kg := optr(t, "ledger", "keygen", "--key", "local.key"); kg.code != 0 || !strings.HasPrefix(kg.stdout, "optr/local+") || !strings.Contains(kg.stderr, "--origin optr/<owner>/<repo>") {
		t.Fatalf("keygen without a repository: exit %d, %q, %q", kg.code, kg.stdout, kg.stderr)
	}
	if cp := optr(t, "ledger", "checkpoint", "--key", "repo.key"); cp.code != 2 || !strings.Contains(cp.stderr, `named "optr/octo/repo", the ledger's origin is "optr/local"`) {
		t.Errorf("signing optr/local with a key named optr/octo/repo: exit %d, %q", cp.code, cp.stderr)
	}
	if cp := optr(t, "ledger", "checkpoint", "--key", "repo.key", "--origin", "optr/octo/repo"); cp.code != 0 {
		t.Errorf("signing with the key of the origin: exit %d, %q", cp.code, cp.stderr)
	}
}
