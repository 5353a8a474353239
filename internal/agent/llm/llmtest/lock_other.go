//go:build !unix

package llmtest

// lockFile does nothing where npm has no Copilot CLI package: the tests
// that need the CLI are told where it is (OPTR_COPILOT_CLI) or skip.
func lockFile(string) (func(), error) { return func() {}, nil }
