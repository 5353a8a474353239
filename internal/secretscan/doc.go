// Package secretscan finds token-shaped strings — API keys, access tokens,
// private keys — in text, with gitleaks' maintained rule set
// (github.com/zricethezav/gitleaks/v8/config: its gitleaks.toml, loaded
// with its own config loader), never with patterns of our own. Package
// redact replaces what it finds in every byte optr stores or posts, and
// package detect reports it as a threat before π*'s result is delivered:
// the same rules for both.
//
// The rules are loaded on first use, and each rule's expressions are
// compiled only when one of its keywords first appears in a text: loading
// and compiling all of them costs 40 ms and 20 MiB, which a run whose
// outputs hold no keyword should not pay.
package secretscan
