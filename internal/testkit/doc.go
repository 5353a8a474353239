// Package testkit is the wing of the test kits that several packages share:
// real git repositories, golden files, a clock tests move, the offline demo,
// the npm packages JavaScript-driven checks need, and the tests that keep the
// documentation honest. Nothing under it is part of optr's binary;
// cmd/optr's TestBinaryDependencies fails when one of its packages, or a
// module only tests use, reaches the binary.
//
// A fake of one package's world stays beside that package instead, named
// after it with "test" (internal/github/githubtest).
package testkit
