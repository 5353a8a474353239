package command

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/spool"
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
		head := spool.New(spool.Options{Max: 30, Redactor: r})
		_, _ = head.Write([]byte(strings.Repeat("z", 10) + key[:split]))
		_, _ = head.Write([]byte(key[split:] + "tail"))
		kept, err := head.Close()
		if err != nil {
			t.Fatal(err)
		}
		for what, got := range map[string]string{"stderr tail": tail.String(), "stdout head": kept.Text} {
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
