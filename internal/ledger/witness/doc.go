// Package witness checks a ledger against its own git history (architecture
// §4.13, `optr ledger verify --witness`): a hash chain proves only that no
// byte was flipped, while anyone with write access can rewrite the ledger
// and re-chain it. The history is the witness: every commit's ledger must
// be a prefix of the next commit's (sealed segments kept as they were, the
// active segment only growing or sealed), each commit's Optr-Ledger-Size
// and Optr-Ledger-Head trailers must match the ledger it holds, and the
// ledger in the working tree must extend the last committed one.
//
// The history alone cannot see a rewrite that was force-pushed and
// re-chained consistently. Two more witnesses can: the clone remembers
// the heads it verified (.git/optr-witness, never committed) and a later
// Check fails when the ledger no longer holds one of them; and
// CheckPublished compares the ledger with the heads optr published in its
// final progress comments, which a rewrite of the repository cannot edit
// unnoticed (ParsePublished reads them; the caller finds optr's own
// comments by marker and author).
//
// It drives the real git binary: one rev-list and one long-lived
// `git cat-file --batch`, so the cost is a few reads per commit, bounded by
// the active segment's size, not the ledger's.
package witness
