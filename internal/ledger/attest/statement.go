package attest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/ledger"
)

// The in-toto types this package writes.
const (
	// StatementType is the in-toto Statement v1 type.
	StatementType = "https://in-toto.io/Statement/v1"
	// PredicateType identifies optr's run predicate.
	PredicateType = "https://optr.dev/attestation/run/v1"
	// FileName is the Statement's file name in the run folder.
	FileName = "optr-attestation.json"
)

// Subject is one attested file: its repository-relative name and digest.
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// FileSubject is the subject for a file with this content.
func FileSubject(name string, content []byte) Subject {
	sum := sha256.Sum256(content)
	return Subject{Name: name, Digest: map[string]string{"sha256": hex.EncodeToString(sum[:])}}
}

// ReaderSubject is FileSubject for content read from r, hashed as it is
// read: a result of many MiB is never held whole.
func ReaderSubject(name string, r io.Reader) (Subject, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return Subject{}, err
	}
	return Subject{Name: name, Digest: map[string]string{"sha256": hex.EncodeToString(h.Sum(nil))}}, nil
}

// EntrySubject is the subject for ledger entry seq of the ledger named
// ledgerName: named ledgerName#seq, with the digest of the entry's line
// as written, newline included (what `sed -n '<seq>p' ledger.jsonl`
// prints, while the entry is in the active segment). The ledger file
// itself grows after the run, so it is no subject; its entry is.
func EntrySubject(ledgerName string, seq int64, line []byte) Subject {
	return FileSubject(fmt.Sprintf("%s#%d", ledgerName, seq), line)
}

// Candidate is one agent's result in the predicate.
type Candidate struct {
	Agent        string  `json:"agent"`
	Admissible   bool    `json:"admissible"`
	Score        float64 `json:"score"`
	OutputSHA256 string  `json:"output_sha256"`
	PatchSHA256  string  `json:"patch_sha256,omitempty"`
}

// Run is what the predicate says about a run.
type Run struct {
	// RunID and Workflow name the run.
	RunID    string `json:"run_id"`
	Workflow string `json:"workflow"`
	// IntentSHA256 is the hash of the resolved intent, as in the ledger.
	IntentSHA256 string `json:"intent_sha256"`
	// Selected is the agent whose result was chosen ("" for none).
	Selected string `json:"selected"`
	// Candidates are every agent's result.
	Candidates []Candidate `json:"candidates"`
	// Commit is the triggering GITHUB_SHA, when known.
	Commit string `json:"commit,omitempty"`
	// Ledger is the ledger head after the run recorded it.
	Ledger LedgerHead `json:"ledger"`
	// Checkpoint is the ledger's C2SP checkpoint text, when there is one.
	Checkpoint string `json:"checkpoint,omitempty"`
}

// LedgerHead is a ledger head in the predicate.
type LedgerHead struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"`
}

// HeadOf turns a ledger.Head into the predicate's form.
func HeadOf(h ledger.Head) LedgerHead { return LedgerHead{Seq: h.Seq, Hash: h.Hash} }

// Statement is an in-toto Statement v1 with optr's run predicate.
type Statement struct {
	Type          string    `json:"_type"`
	Subject       []Subject `json:"subject"`
	PredicateType string    `json:"predicateType"`
	Predicate     Run       `json:"predicate"`
}

// New builds the Statement of run over subjects (the selected result,
// FileSubject, and the run's ledger entry, EntrySubject). It checks what
// a verifier relies on: at least one subject, each with a clean relative
// name and a SHA-256 digest, distinct names, and a run id.
func New(run Run, subjects ...Subject) (Statement, error) {
	if run.RunID == "" {
		return Statement{}, errors.New("attestation: the run id is empty")
	}
	if len(subjects) == 0 {
		return Statement{}, errors.New("attestation: no subject: give the run's ledger entry and the selected result")
	}
	var names []string
	for _, s := range subjects {
		d := s.Digest["sha256"]
		switch {
		case s.Name == "" || strings.HasPrefix(s.Name, "/") || slices.Contains(strings.Split(s.Name, "/"), ".."):
			return Statement{}, fmt.Errorf("attestation: subject name %q is not a repository-relative path", s.Name)
		case len(d) != 64 || strings.Trim(d, "0123456789abcdef") != "":
			return Statement{}, fmt.Errorf("attestation: subject %s has no SHA-256 digest", s.Name)
		case slices.Contains(names, s.Name):
			return Statement{}, fmt.Errorf("attestation: subject %s is given twice", s.Name)
		}
		names = append(names, s.Name)
	}
	if run.Candidates == nil {
		run.Candidates = []Candidate{}
	}
	return Statement{Type: StatementType, Subject: subjects, PredicateType: PredicateType, Predicate: run}, nil
}

// JSON is the Statement as written to optr-attestation.json: indented,
// with a trailing newline. The caller redacts and writes it like every
// other run file.
func (s Statement) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("attestation: %w", err)
	}
	return append(b, '\n'), nil
}
