// Package secretscan finds token-shaped strings — API keys, access tokens,
// private keys — in text, with gitleaks' maintained rule set (its
// gitleaks.toml, kept byte for byte as gitleaks ships it and embedded in
// JSON, converted at go generate time), never with patterns of our own. The rule file is read by this package's loader,
// which builds the rules as gitleaks' own loader does (tested against it)
// without linking gitleaks' viper-based config package; it reads one
// expression of gitleaks' global allowlist as its author meant it
// (anchorAlternation). Package redact replaces what it finds in every
// byte optr stores or posts, and package detect reports it as a threat
// before π*'s result is delivered: the same rules for both.
//
// The rules are loaded on first use, and each rule's expressions are
// compiled only when one of its keywords first appears in a text. A scan
// is linear in its text (FindLimited): each rule's expression runs only
// near its keywords, tried anchored at the keyword first where its shape
// allows, and a window that lacks what a match needs is skipped; detection
// bounds a scan's work and the matches it lists per rule.
package secretscan
