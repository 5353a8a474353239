// Package attest builds the in-toto Statement of a run, optr-attestation.json
// in the run folder (architecture §4.13, issue 16): its subjects are what never
// changes after the run — the selected result and the line of the run's
// ledger entry — by SHA-256, its predicate the run's id, intent hash,
// candidates' digests and scores, the ledger head that records them and
// the ledger's checkpoint. Users who want Sigstore on top pass it to
// actions/attest (docs/ledger-and-provenance.md shows how), and
// `gh attestation verify` checks the files against it.
package attest
