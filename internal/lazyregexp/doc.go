// Package lazyregexp is a regular expression compiled on first use.
//
// A package-level regexp.MustCompile runs in the package's init, so every
// start of optr paid for every pattern of every package it links, `optr
// version` included. A *Regexp made by New costs nothing until a method is
// called. In test binaries New compiles at once, so a pattern that does not
// compile still fails the tests of every package that declares one. (After
// Go's own src/internal/lazyregexp.)
package lazyregexp
