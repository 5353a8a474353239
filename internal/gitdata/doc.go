// Package gitdata is the narrow slice of GitHub's Git Data API that
// commit-back writes through (package commitback): read a branch's tip, a
// commit, a file or a directory at a commit; create blobs, trees and
// commits; move a branch with compare-and-swap. It holds the interface
// (Store), the values it passes and the errors a store answers with, and
// nothing about what is committed.
//
// *github.Client implements Store over HTTP; package gitdatatest implements
// it in memory, honouring compare-and-swap as GitHub does, for tests that
// need no HTTP.
package gitdata
