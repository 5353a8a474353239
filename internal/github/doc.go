// Package github is optr's GitHub client, built on go-github: who may act
// (repository permission), reactions, the progress, checkpoint and
// escalation comments (found again by hidden marker and author, edited in
// place), and the commit-back of the ledger and a run's files through the
// Git Data API with compare-and-swap on the branch.
//
// Every request goes through one transport that waits out GitHub's rate
// limits (403 primary and secondary, and 429, which go-github v60 does not
// type), retries 5xx answers and broken connections with exponential
// backoff and jitter, serialises writes (GitHub limits content creation to
// about 80 requests a minute) and counts requests per operation.
//
// Tests run it against the fake server in package githubtest.
package github
