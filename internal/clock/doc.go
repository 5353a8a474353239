// Package clock holds what optr's waits share: a sleep that ends early,
// with the context's cause, when its context is done. Retry loops (commit-
// back, the witness client, the GitHub transport, recovery) wait through
// it, and take a replacement in tests (internal/testkit/clocktest).
package clock
