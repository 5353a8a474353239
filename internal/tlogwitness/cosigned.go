package tlogwitness

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	fwitness "github.com/transparency-dev/formats/witness"
	"golang.org/x/mod/sumdb/note"
)

// Cosigned is the signed checkpoint with every witness's cosignatures
// added as signature lines: what `<datalake>/checkpoints/ledger-<size>.cosigned`
// holds, and the ledger-checkpoint output once witnesses cosigned.
// Without any cosignature it is signed unchanged.
func Cosigned(signed []byte, results []Result) []byte {
	out := bytes.Clone(signed)
	for _, r := range results {
		for _, s := range r.Cosignatures {
			out = fmt.Appendf(out, "— %s %s\n", s.Name, s.Base64)
		}
	}
	return out
}

// Cosigners returns, in the order of keys, the key names of the witnesses
// whose cosignature on the checkpoint cp (a signed note) verifies with
// their key (C2SP cosignature/v1, as transparency-dev/formats/witness
// checks one), and checks that at least quorum of them cosigned it: a
// *QuorumError when not. A key that is not a witness's verifier key is an
// error; so is a quorum that is not 1 to len(keys).
func Cosigners(cp []byte, keys []string, quorum int) ([]string, error) {
	if quorum < 1 || quorum > len(keys) {
		return nil, fmt.Errorf("the witness quorum must be 1 to the %d witness keys given, got %d", len(keys), quorum)
	}
	ws := make([]fwitness.Witness, len(keys))
	for i, k := range keys {
		v, err := Verifier(k)
		if err != nil {
			return nil, err
		}
		ws[i] = fwitness.Witness{Key: v}
	}
	var names, all []string
	for _, w := range ws {
		all = append(all, w.Key.Name())
		if w.Satisfied(cp) {
			names = append(names, w.Key.Name())
		}
	}
	if len(names) < quorum {
		return names, &QuorumError{Want: quorum, Cosigners: names, Witnesses: all, why: openError(cp, ws)}
	}
	return names, nil
}

// QuorumError says that too few of the named witnesses cosigned a
// checkpoint.
type QuorumError struct {
	Want      int
	Cosigners []string
	Witnesses []string
	why       string
}

func (e *QuorumError) Error() string {
	got := "none of them"
	if len(e.Cosigners) > 0 {
		got = "only " + strings.Join(e.Cosigners, ", ")
	}
	msg := fmt.Sprintf("the checkpoint is cosigned by %s, of the %d witness(es) named (%s); at least %d must cosign it", got, len(e.Witnesses), strings.Join(e.Witnesses, ", "), e.Want)
	if e.why != "" {
		msg += " (" + e.why + ")"
	}
	return msg
}

// openError says why no named witness's cosignature verifies, when the
// note itself is the reason: not a signed note, or a signature line by a
// named key that does not verify.
func openError(cp []byte, ws []fwitness.Witness) string {
	vs := make([]note.Verifier, len(ws))
	for i, w := range ws {
		vs[i] = w.Key
	}
	_, err := note.Open(cp, note.VerifierList(vs...))
	var unverified *note.UnverifiedNoteError
	if err == nil || errors.As(err, &unverified) {
		return ""
	}
	return err.Error()
}
