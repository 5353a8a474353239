package frames

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var fuzzSeeds = []string{
	"plain\ntext",
	"<<<OPTR:READY:{\"stage\":\"plan\",\"ts\":\"t\"}>>>\nanswer\n",
	"x<<<OPTR:HANDOFF:review>>>y",
	`<<<OPTR:ERROR:{"code":"E","message":"a >>> b \" c"}>>>`,
	`<<<ODEI:RESULT:{"ttv_ms":12.5}>>>`,
	"<<<<OPTR:HANDOFF:a>>>>",
	"<<<O<<<OPTR:HANDOFF:a>>>PTR:HANDOFF:b>>>\n",
	`<<<OPTR:ERROR:{"message":"open <<<OPTR:RESULT:{"ttv_ms":5}>>>`,
	"<<<OPTR:HANDOFF:a\nb>>>",
	"<<<OPTR:ready:{}>>> <<<OPTR:READY>x <<<OPTR:PING:{}>>>",
	"REPORT_CREATED: r.md\nTASK_ERROR: t - m\r\nERROR_CONTEXT: {\"a\":1}\nTASK_ERROR: end",
	"REPORT_<<<OPTR:READY:{}>>>CREATED: a.md\n",
	"<<<OPTR:ERROR:{\"message\":\"a\nb>>>c\"}>>>",
	"<<<ODEI:READY:discuss>>>\n<<<ODEI:ERROR:no \"db\">>>",
}

// FuzzParser checks, for any stream and any way of cutting it into writes:
// no panic, bounded buffers, the same result as one write, no frame start in
// the output, output that is the input with parts removed, and events that
// are frames the input really holds.
func FuzzParser(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), []byte{1, 3, 7})
	}
	f.Fuzz(func(t *testing.T, in, cuts []byte) {
		for _, opts := range []Options{{}, {MaxFrame: minLimit, MaxLine: minLimit}} {
			whole := parse(t, opts, in)
			for _, chunks := range [][][]byte{cutAt(in, cuts), cutAt(in, []byte{1})} {
				got := parse(t, opts, chunks...)
				if diff := cmp.Diff(whole, got, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("cut into %d writes, the result differs from one write (-one +cut):\n%s", len(chunks), diff)
				}
			}
			out := []byte(whole.Out)
			if bytes.Contains(out, []byte(startOPTR)) || bytes.Contains(out, []byte(startODEI)) {
				t.Fatalf("output holds a frame start: %q", out)
			}
			if !isSubsequence(out, in) {
				t.Fatalf("output %q is not the input %q with parts removed", out, in)
			}
			if !bytes.Contains(in, []byte("<<<")) && !bytes.Equal(out, in) {
				t.Fatalf("input without <<< changed: %q → %q", in, out)
			}
			if again := parse(t, opts, out); again.Out != whole.Out {
				t.Fatalf("parsing the output again changed it: %q → %q", whole.Out, again.Out)
			}
			for _, e := range whole.Events {
				if !e.Type.IsFrame() {
					continue
				}
				if !bytes.Contains(in, []byte(e.Raw)) {
					t.Fatalf("event %+v is not a frame of the input", e)
				}
				alone := parse(t, opts, []byte(e.Raw))
				if diff := cmp.Diff([]Event{e}, alone.Events); diff != "" || alone.Out != "" {
					t.Fatalf("the frame alone parses differently (-in stream +alone):\n%s\noutput %q", diff, alone.Out)
				}
			}
		}
	})
}

// cutAt cuts b into writes whose sizes cycle through sizes (0 counts as 1).
func cutAt(b, sizes []byte) [][]byte {
	if len(sizes) == 0 {
		return [][]byte{b}
	}
	var out [][]byte
	for i := 0; len(b) > 0; i++ {
		n := min(len(b), max(1, int(sizes[i%len(sizes)])))
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

// isSubsequence reports whether sub can be made from b by deleting bytes.
func isSubsequence(sub, b []byte) bool {
	for _, c := range sub {
		i := bytes.IndexByte(b, c)
		if i < 0 {
			return false
		}
		b = b[i+1:]
	}
	return true
}
