// Package commitback owns commit-back: recording a run on a branch of the
// repository in one commit, without a clone, through the Git Data API
// ([gitdata.Store], which *github.Client implements).
//
// A commit-back re-chains the run's ledger entries onto whatever the
// branch's ledger holds when the commit lands ([ledger.Rechain]), writes them
// and the run's files in one tree on the branch's, ends the commit message
// with the Optr-Ledger-Size, Optr-Ledger-Head and Optr-Ledger-Tree
// trailers, and moves the branch with compare-and-swap. It seals the active
// segment into ledger.d/ with its Merkle tree file when an append would
// take it past 8 MiB (architecture §4.3), checks before it writes that the
// branch's ledger still holds the head last published (architecture §4.13), and
// when another writer moved the branch first it waits (a backoff measured
// in its own rounds) and tries again on the new tip, sending only what
// changed. From what it committed it makes the ledger's C2SP checkpoint,
// signed when the Action has OPTR_LEDGER_KEY ([Result.Checkpoint]).
//
// Tests run it in memory (gitdatatest) and over HTTP against the fake
// GitHub (githubtest).
package commitback
