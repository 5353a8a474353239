// Package attest builds the in-toto Statement of a run, optr-attestation.json
// in the run folder (DESIGN §4.13, issue 16): its subjects are the ledger
// file and the selected result (and patch) by SHA-256, its predicate the
// run's id, intent hash, candidates' digests and scores and the ledger head
// that records them. Users who want Sigstore on top pass it to
// actions/attest (docs/ledger-and-provenance.md shows how), and
// `gh attestation verify` checks the files against it.
package attest
