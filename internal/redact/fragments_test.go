package redact

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/secretscan/tokentest"
)

// Issue 27.7: a secret split across lines reached committed files as
// fragments, and a token in a variable optr does not know was not
// redacted at all.
func TestRedactorFragments(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-E2EanthropicKEY-9876543210zyxwv"
	npm := tokentest.NPMToken(1)
	r := New(key)
	tests := []struct{ name, in, want string }{
		{"split across lines", "key: " + key[:15] + "\n" + key[15:] + "\n", "key: [redacted]\n[redacted]\n"},
		{"wrapped in a table", "| " + key[:12] + " |\n| " + key[12:26] + " |\n| " + key[26:] + " |", "| [redacted] |\n| [redacted] |\n| [redacted] |"},
		{"a piece under 8 bytes stays", "x " + key[:7] + " y", "x " + key[:7] + " y"},
		{"the whole key", "a " + key + " b", "a [redacted] b"},
		{"an unknown npm token, by its shape", "NPM_TOKEN=" + npm + "\n", "NPM_TOKEN=[redacted:npm-access-token]\n"},
		{"an unknown npm token split: the pieces are not token-shaped", npm[:20] + "\n" + npm[20:], npm[:20] + "\n" + npm[20:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	if !r.Holds("x"+key[3:14]+"y") || r.Holds("NPM_TOKEN="+npm) {
		t.Error("Holds: want true for a fragment of a known value, false for a token optr was not given")
	}
}

// A signed-note private key shares its name and hash with the verifier
// key that every signed checkpoint publishes: only the key material is
// secret, so the checkpoint's origin and signature line stay readable.
func TestRedactorNoteKey(t *testing.T) {
	t.Parallel()
	const key = "PRIVATE+KEY+optr/octo/widgets+1a2b3c4d+AZmFrZXByaXZhdGVrZXltYXRlcmlhbDAxMjM0NTY3"
	r := New(key)
	checkpoint := "optr/octo/widgets\n3\nabc=\n\n— optr/octo/widgets Gqk1+sig\n"
	if got := r.String(checkpoint); got != checkpoint {
		t.Errorf("a checkpoint was redacted: %q", got)
	}
	if got := r.String("OPTR_LEDGER_KEY=" + key); strings.Contains(got, "ZmFrZXByaXZhdGVr") || !strings.HasSuffix(got, "[redacted]") {
		t.Errorf("the key material survived: %q", got)
	}
}

// Tokens split by a write boundary, or lying across the Writer's passes,
// come out as String redacts them.
func TestWriterTokens(t *testing.T) {
	t.Parallel()
	r := New("sk-live-abcdef123456")
	filler := strings.Repeat("lorem ipsum dolor sit amet, token key secret.\n", 30<<10)
	var b strings.Builder
	for i := range 12 {
		b.WriteString(filler[:(i*97_531)%len(filler)])
		b.WriteString(" NPM_TOKEN=" + tokentest.NPMToken(uint64(i)) + " sk-live-abcdef123456\n")
	}
	text := b.String()
	want := r.String(text)
	if strings.Contains(want, "npm_") || strings.Contains(want, "sk-live") {
		t.Fatal("String left a token")
	}
	for _, sizes := range [][]int{{1 << 20}, {4096}, {7, 70_001, 13}, {block + 5}} {
		if got := writeChunks(t, r, text, sizes); got != want {
			t.Errorf("chunks %v: the stream differs from String", sizes)
		}
	}
}
