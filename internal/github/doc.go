// Package github is optr's GitHub client, built on go-github: who may act
// (repository permission), reactions, the progress, checkpoint and
// escalation comments (found again by hidden marker and author, edited in
// place), pull requests, and the Git Data API that commit-back writes
// through (the client is a gitdata.Store: read a branch's tip, files and
// directories; create blobs, trees and commits; move a branch with
// compare-and-swap). What a commit-back commits is package commitback's;
// this package knows nothing of the ledger.
//
// Every request goes through one transport that waits out GitHub's rate
// limits (403 primary and secondary, and 429, which go-github v60 does not
// type), retries 5xx answers and broken connections with exponential
// backoff and jitter, serialises writes (GitHub limits content creation to
// about 80 requests a minute) and counts requests per operation.
//
// Tests run it against the fake server in package githubtest.
package github
