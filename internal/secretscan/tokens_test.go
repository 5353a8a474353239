package secretscan

import (
	"math/rand/v2"
	"strings"
)

// Tokens of the shapes gitleaks' rules know, made at run time from a
// seeded generator: the repository holds no token-shaped string.

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// random returns n characters of alphabet, the same for the same seed.
func random(seed uint64, n int, alphabet string) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	for range n {
		b.WriteByte(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// GitHubPAT is a classic GitHub personal access token (rule github-pat).
func GitHubPAT(seed uint64) string { return "ghp_" + random(seed, 36, alnum) }

// NPMToken is an npm access token (rule npm-access-token).
func NPMToken(seed uint64) string {
	return "npm_" + random(seed, 36, "abcdefghijklmnopqrstuvwxyz0123456789")
}

// AWSKeyID is an AWS access key id (rule aws-access-token).
func AWSKeyID(seed uint64) string {
	return "AKIA" + random(seed, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
}

// PrivateKey is a PEM private key block (rule private-key).
func PrivateKey(seed uint64) string {
	var b strings.Builder
	b.WriteString("-----BEGIN RSA PRIVATE KEY-----\n")
	for i := range 20 {
		b.WriteString(random(seed+uint64(i), 64, alnum+"+/"))
		b.WriteByte('\n')
	}
	b.WriteString("-----END RSA PRIVATE KEY-----")
	return b.String()
}
