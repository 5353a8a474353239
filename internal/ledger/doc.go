// Package ledger is optr's append-only, hash-chained record of runs
// (architecture §4.3): one JSON object per line in <datalake>/ledger.jsonl.
//
// Every entry has the members seq (1, 2, 3, …), time (RFC 3339, UTC), kind,
// run, workflow, prev and hash, plus kind-specific members at the top level.
// hash is the lowercase hex SHA-256 of the RFC 8785 (JCS) canonical form of
// the entry without its hash member; prev is the previous entry's hash, 64
// zeros for the first. The line written is the canonical form of the whole
// entry, so a verifier can hash the line's own bytes with the hash member cut
// out, and can tell a hand-edited line from a written one.
//
// The package has four jobs:
//
//   - [Chain] turns [Draft] values into [Entry] values on top of a [Head]
//     (pure).
//   - [Append] adds entries to a file under an exclusive lock, reading only the
//     file's tail, with one write and an fsync.
//   - [Verify] streams a ledger and names the first bad line and why.
//   - [Rechain] moves a run's entries onto a remote ledger that moved ahead
//     (commit-back under optimistic concurrency), dropping entries that are
//     already there, so no entry is ever lost, duplicated or forked.
//
// ledger.jsonl is the active segment: an append that would take it past
// [SegmentLimit] first seals it, unchanged, into [SegmentDir], and every
// reader treats the sealed segments and the active one as one ledger.
//
// The ledger is also an RFC 6962 Merkle tree (architecture §4.13):
// [VerifyTree], [HeadCheckpoint], [Prove] and [ProveConsistency] compute
// its checkpoints and proofs, the last three from each sealed segment's
// tree file ([SegmentTree]) and the active segment, at a cost that does
// not grow with the ledger.
//
// [Scan] reads entries without verifying them; [WriteSynthetic] writes a
// large realistic ledger for benchmarks.
package ledger
