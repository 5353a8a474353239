package redact

import (
	"io"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/secretscan/tokentest"
)

// benchText is n bytes of the given kind: "plain" is optr-bench's P10
// agent output, lines cycled; "code" is source and prose dense with the
// words secret rules look for (tokentest.KeywordDense).
func benchText(kind string, n int) string {
	if kind == "code" {
		return tokentest.KeywordDense(n)
	}
	return strings.Repeat("optr bench output line, 64 bytes long, again and again ......\n", n/64+1)[:n]
}

var benchSecrets = []string{
	"ghs_E2EworkflowTOKEN0123456789abcdefXYZ",
	"sk-ant-E2EanthropicKEY-9876543210zyxwv",
	"sk-proj-0123456789abcdefghijklmnopqrstuvwxyzABCD",
}

// BenchmarkWriter streams 16 MiB through a Writer in 64 KiB writes, as an
// agent's stdout reaches its spool: the redactor's cost on every output.
func BenchmarkWriter(b *testing.B) {
	for _, kind := range []string{"plain", "code"} {
		text := []byte(benchText(kind, 16<<20))
		r := New(benchSecrets...)
		b.Run(kind, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				w := NewWriter(io.Discard, r)
				for p := text; len(p) > 0; {
					n := min(len(p), 64<<10)
					if _, err := w.Write(p[:n]); err != nil {
						b.Fatal(err)
					}
					p = p[n:]
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkString redacts a 256 KiB text at once, as a result file or a
// comment is.
func BenchmarkString(b *testing.B) {
	text := benchText("code", 256<<10)
	r := New(benchSecrets...)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = r.String(text)
	}
}
