// Package pathglob matches slash-separated repository paths against globs
// in which "**" spans directories, as changes.protect writes them
// (".github/workflows/**", "**/*.pem").
package pathglob
