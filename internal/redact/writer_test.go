package redact

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// writeChunks writes text through a Writer in pieces of the given sizes
// (cycled) and returns what reached the other side.
func writeChunks(t *testing.T, r *Redactor, text string, sizes []int) string {
	t.Helper()
	var got bytes.Buffer
	w := NewWriter(&got, r)
	for i := 0; len(text) > 0; i++ {
		n := min(sizes[i%len(sizes)], len(text))
		if _, err := w.Write([]byte(text[:n])); err != nil {
			t.Fatal(err)
		}
		text = text[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return got.String()
}

func TestWriterMatchesString(t *testing.T) {
	t.Parallel()
	const key, other = "sk-live-abcdef123456", "ghs_0123456789abcdef"
	r := New(key, other, key+"-extended")
	filler := strings.Repeat("lorem ipsum ", 12<<10) // 144 KiB: past streamAfter
	tests := []struct {
		name string
		text string
	}{
		{"short with a key", "a " + key + " b"},
		{"short, cut edges", key[5:] + " middle " + key[:10]},
		{"long, key split by a chunk edge", filler[:streamAfter-7] + key + filler},
		{"long, keys back to back", filler + key + other + key + "-extended" + filler},
		{"long, cut edges at both ends", key[4:] + filler + other[:12]},
		{"long, a key at the very end", filler + key},
		{"long, a key at the very start", key + filler},
		{"long, nothing secret", filler},
	}
	chunkings := [][]int{{1 << 20}, {1}, {7}, {4096}, {3, 1000, 19, 65536}, {streamAfter - 1, 5}}
	for _, tt := range tests {
		want := r.String(tt.text)
		for _, sizes := range chunkings {
			if got := writeChunks(t, r, tt.text, sizes); got != want {
				t.Errorf("%s, chunks %v: the stream differs from String (len %d, want %d)", tt.name, sizes, len(got), len(want))
			}
		}
		if strings.Contains(writeChunks(t, r, tt.text, []int{7}), key) {
			t.Errorf("%s: a key got through", tt.name)
		}
	}
}

func TestWriterRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	secrets := []string{"AKIAxxxxSECRET01", "tok_abcdefgh", "tok_abcdefgh_and_more"}
	r := New(secrets...)
	for range 30 {
		var b strings.Builder
		for b.Len() < 200<<10 {
			switch rng.IntN(5) {
			case 0:
				s := secrets[rng.IntN(len(secrets))]
				b.WriteString(s[:rng.IntN(len(s)+1)]) // a fragment or the whole
			case 1:
				b.WriteString(secrets[rng.IntN(len(secrets))])
			default:
				b.WriteString(strings.Repeat("x", rng.IntN(3000)))
			}
		}
		text := b.String()
		sizes := []int{1 + rng.IntN(20), 1 + rng.IntN(70000), 1 + rng.IntN(500)}
		if got, want := writeChunks(t, r, text, sizes), r.String(text); got != want {
			t.Fatalf("chunks %v: the stream differs from String", sizes)
		}
	}
}

func TestWriterNil(t *testing.T) {
	t.Parallel()
	for _, r := range []*Redactor{nil, New()} {
		if got := writeChunks(t, r, "sk-live-abcdef123456", []int{3}); got != "sk-live-abcdef123456" {
			t.Errorf("an empty Redactor changed the stream: %q", got)
		}
	}
}
