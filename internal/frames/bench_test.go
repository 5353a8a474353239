package frames

import (
	"io"
	"strings"
	"testing"
)

// BenchmarkParser measures throughput on agent-like output: Markdown with a
// few '<' characters, a frame every 64 lines and a line signal now and then.
func BenchmarkParser(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		switch {
		case i%64 == 0:
			sb.WriteString(`<<<OPTR:READY:{"stage":"build","ts":"2025-01-02T03:04:05Z"}>>>` + "\n")
		case i%97 == 0:
			sb.WriteString("REPORT_CREATED: reports/001_topic.md\n")
		default:
			sb.WriteString("- step: compare a < b and write the <result> to the report, then continue\n")
		}
	}
	in := []byte(sb.String())
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		p := New(io.Discard, Options{})
		for c := in; len(c) > 0; {
			n := min(len(c), 4096)
			_, _ = p.Write(c[:n])
			c = c[n:]
		}
		_ = p.Close()
	}
}
