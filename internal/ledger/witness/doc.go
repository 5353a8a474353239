// Package witness checks a ledger against its own git history (DESIGN
// §4.13, `optr ledger verify --witness`): a hash chain proves only that no
// byte was flipped, while anyone with write access can rewrite the ledger
// and re-chain it. The history is the witness: every commit's ledger must
// be a prefix of the next commit's (sealed segments kept as they were, the
// active segment only growing or sealed), each commit's Optr-Ledger-Size
// and Optr-Ledger-Head trailers must match the ledger it holds, and the
// ledger in the working tree must extend the last committed one.
//
// It drives the real git binary: one rev-list and one long-lived
// `git cat-file --batch`, so the cost is a few reads per commit, bounded by
// the active segment's size, not the ledger's.
package witness
