// Package gitdatatest is an in-memory repository that implements
// gitdata.Store for tests that need no HTTP: blobs named by their git blob
// sha, trees merged onto a base, commits, and branches moved only by
// compare-and-swap as GitHub moves them (an update that is not a
// fast-forward, or a branch created twice, is gitdata.ErrMoved; an empty
// repository refuses everything but CreateFile). Branches can be
// protected, every call can be held for a latency (a stand-in for GitHub's
// round trip, which costs no real time inside a testing/synctest bubble)
// and a hook can run before a call to move the branch under its caller.
// It counts calls and the bytes they sent.
//
// Tests of code that talks to GitHub itself use githubtest, the fake
// GitHub over HTTP.
package gitdatatest
