// Package tokentest makes tokens of the shapes gitleaks' rules know, at
// run time from a seeded generator, for tests: the repository holds no
// token-shaped string (a scanner would flag it, and a careless copy would
// look real).
package tokentest
