package command

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/redact"
)

func TestTailBuffer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"nothing", nil, ""},
		{"fits", []string{"ab", "cd"}, "abcd"},
		{"exactly max", []string{"abcdefgh"}, "abcdefgh"},
		{"many small writes", []string{"abc", "def", "ghi", "jkl", "mno", "pqr"}, "[optr: the first 10 bytes of stderr were cut, the last 8 are kept]\nklmnopqr"},
		{"one huge write", []string{"ab", strings.Repeat("x", 100) + "12345678"}, "[optr: the first 102 bytes of stderr were cut, the last 8 are kept]\n12345678"},
		{"cut inside a character", []string{"éééé", "a"}, "[optr: the first 2 bytes of stderr were cut, the last 7 are kept]\néééa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := &tailBuffer{max: 8}
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
				if len(b.buf) > 2*b.max {
					t.Fatalf("holds %d bytes, bound %d", len(b.buf), 2*b.max)
				}
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Fatalf("String (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCapBuffer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string
		want   string
		over   bool
	}{
		{"fits", []string{"ab", "cd"}, "abcd", false},
		{"exactly max", []string{"abcdefgh"}, "abcdefgh", false},
		{"over", []string{"abcde", "fghij", "k"}, "abcdefgh", true},
		{"cut inside a character", []string{"abcdefg", "é"}, "abcdefg", true},
		{"cut after a whole character", []string{"abcdeé", "xy"}, "abcdeéx", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			calls := 0
			b := &capBuffer{max: 8, onOver: func() { calls++ }}
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v: a capBuffer never fails", n, err)
				}
			}
			if got := b.String(); got != tt.want {
				t.Fatalf("String = %q, want %q", got, tt.want)
			}
			if wantCalls := map[bool]int{false: 0, true: 1}[tt.over]; calls != wantCalls {
				t.Fatalf("onOver called %d times, want %d", calls, wantCalls)
			}
		})
	}
}

// A key straddling the cut of a kept tail (stderr) or a kept head (stdout)
// must not leave its other half behind: redaction runs before the cut, and
// a fragment of 8+ bytes at the cut edge counts as the key.
func TestBuffersRedactAcrossTheCut(t *testing.T) {
	t.Parallel()
	const key = "ghs_TOKEN0123456789abcdefXYZ"
	r := redact.New(key)
	for _, split := range []int{4, 10, 14, 20, 26} {
		tail := &tailBuffer{max: 32, redact: r}
		_, _ = tail.Write([]byte(strings.Repeat("x", 40) + key[:split]))
		_, _ = tail.Write([]byte(key[split:] + strings.Repeat("y", 24)))
		head := &capBuffer{max: 30, redact: r, onOver: func() {}}
		_, _ = head.Write([]byte(strings.Repeat("z", 10) + key + "tail"))
		for what, got := range map[string]string{"stderr tail": tail.String(), "stdout head": head.String()} {
			for k := 8; k <= len(key); k++ {
				for i := 0; i+k <= len(key); i++ {
					if strings.Contains(got, key[i:i+k]) && (i == 0 || i+k == len(key)) {
						t.Fatalf("split %d, %s: %q keeps %q, a %d-byte piece of the key", split, what, got, key[i:i+k], k)
					}
				}
			}
		}
	}
}

// TestCapBufferGrowsByDoubling: a 50 MiB output written in 64 KiB pieces
// is kept whole, and the buffer is reallocated (its bytes copied) only
// about log2(50 MiB / 64 KiB) times, not the dozens of times a quarter's
// growth takes.
func TestCapBufferGrowsByDoubling(t *testing.T) {
	t.Parallel()
	piece := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	const pieces = 800                                      // 50 MiB
	b := &capBuffer{max: 64 << 20, onOver: func() { t.Error("over the limit") }}
	grows, lastCap := 0, 0
	for range pieces {
		if _, err := b.Write(piece); err != nil {
			t.Fatal(err)
		}
		if c := b.buf.Cap(); c != lastCap {
			grows, lastCap = grows+1, c
		}
	}
	out := b.String()
	if len(out) != pieces*len(piece) || out[:len(piece)] != string(piece) || out[len(out)-len(piece):] != string(piece) {
		t.Fatalf("kept %d bytes, want %d, intact", len(out), pieces*len(piece))
	}
	if grows > 12 {
		t.Errorf("the buffer was reallocated %d times, want at most 12", grows)
	}
}
