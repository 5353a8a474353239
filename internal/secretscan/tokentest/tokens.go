package tokentest

import (
	"math/rand/v2"
	"strings"
)

// Alnum is the alphabet of most tokens.
const Alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// Random returns n characters of alphabet, the same for the same seed.
func Random(seed uint64, n int, alphabet string) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	for range n {
		b.WriteByte(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// GitHubPAT is a classic GitHub personal access token (rule github-pat).
func GitHubPAT(seed uint64) string { return "ghp_" + Random(seed, 36, Alnum) }

// NPMToken is an npm access token (rule npm-access-token).
func NPMToken(seed uint64) string {
	return "npm_" + Random(seed, 36, "abcdefghijklmnopqrstuvwxyz0123456789")
}

// AWSKeyID is an AWS access key id (rule aws-access-token).
func AWSKeyID(seed uint64) string {
	return "AKIA" + Random(seed, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
}

// PrivateKey is a PEM private key block (rule private-key).
func PrivateKey(seed uint64) string {
	var b strings.Builder
	b.WriteString("-----BEGIN RSA PRIVATE KEY-----\n")
	for i := range 20 {
		b.WriteString(Random(seed+uint64(i), 64, Alnum+"+/"))
		b.WriteByte('\n')
	}
	b.WriteString("-----END RSA PRIVATE KEY-----")
	return b.String()
}
