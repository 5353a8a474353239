package frames

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestMaxFrame(t *testing.T) {
	t.Parallel()
	start := `<<<OPTR:ERROR:{"message":"`
	in := start + strings.Repeat("x", 80) + `"}>>>tail`
	dropped := in[:64]
	want := result{Out: in[64:], Malformed: []string{dropped}}
	for _, f := range feeds(in) {
		got := parse(t, Options{MaxFrame: 64}, f.chunks...)
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%s: mismatch (-want +got):\n%s", f.name, diff)
		}
	}
	// A frame of exactly MaxFrame bytes is still a frame.
	exact := `<<<OPTR:HANDOFF:` + strings.Repeat("s", 64-len("<<<OPTR:HANDOFF:>>>")) + `>>>`
	got := parse(t, Options{MaxFrame: 64}, []byte(exact))
	if len(got.Events) != 1 || len(got.Malformed) != 0 {
		t.Fatalf("frame of exactly MaxFrame bytes: %+v", got)
	}
}

func TestMaxLine(t *testing.T) {
	t.Parallel()
	long := "TASK_ERROR: x - " + strings.Repeat("y", 40)
	in := long + "\nTASK_ERROR: short\n" + strings.Repeat("z", 100) + "\n"
	want := result{
		Out:       in,
		Events:    []Event{{Type: TaskError, Message: "short", Payload: "short", Raw: "TASK_ERROR: short"}},
		Malformed: []string{long[:32]},
	}
	for _, f := range feeds(in) {
		got := parse(t, Options{MaxLine: 32}, f.chunks...)
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%s: mismatch (-want +got):\n%s", f.name, diff)
		}
	}
}

// TestBoundedMemory feeds streams that never close a frame or a line and
// checks that the parser keeps no more than its limits.
func TestBoundedMemory(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		start string
		fill  string
	}{
		{"unclosed JSON frame", `<<<OPTR:ERROR:{"message":"`, "x"},
		{"unclosed unknown frame", "<<<OPTR:BLOB:", "ab\n"},
		{"endless signal line", "TASK_ERROR: ", "y"},
		{"endless starts", "", "<<<O"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			chunk := make([]byte, 64<<10)
			p := New(io.Discard, Options{})
			if _, err := p.Write([]byte(tt.start)); err != nil {
				t.Fatal(err)
			}
			for i := range chunk {
				chunk[i] = tt.fill[i%len(tt.fill)]
			}
			for range 64 { // 4 MiB
				if _, err := p.Write(chunk); err != nil {
					t.Fatal(err)
				}
				checkBounds(t, p)
				if c := cap(p.frame.buf); c > 2*DefaultMaxFrame {
					t.Fatalf("frame buffer capacity %d", c)
				}
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(b []byte) (int, error) {
	w.n++
	return 0, errors.New("disk full")
}

func TestWriteErrorIsSticky(t *testing.T) {
	t.Parallel()
	w := &failWriter{}
	p := New(w, Options{})
	if _, err := p.Write([]byte("a")); err == nil || err.Error() != "disk full" {
		t.Fatalf("first Write error = %v, want disk full", err)
	}
	if _, err := p.Write([]byte("b")); err == nil {
		t.Fatal("second Write returned no error")
	}
	if err := p.Close(); err == nil {
		t.Fatal("Close returned no error")
	}
	if w.n != 1 {
		t.Fatalf("the failing writer was called %d times, want 1", w.n)
	}
	if _, err := p.Write([]byte("c")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Write after Close = %v, want ErrClosed", err)
	}
}

// TestOutputPrecedesEvent checks that when an event is reported, the clean
// output before it has been written.
func TestOutputPrecedesEvent(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	var seen []string
	p := New(&out, Options{OnEvent: func(e Event) { seen = append(seen, string(e.Type)+"@"+out.String()) }})
	in := "one\n<<<OPTR:READY:{}>>>two TASK\nTASK_ERROR: boom\nthree"
	if _, err := p.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"READY@one\n", "TASK_ERROR@one\ntwo TASK\nTASK_ERROR: boom\n"}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Fatalf("output at each event (-want +got):\n%s", diff)
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", maxExcerpt) // 2 bytes each: the cut falls inside one
	got := excerpt([]byte("x" + long))
	if !utf8.ValidString(got) || strings.Contains(got, "\uFFFD") || !strings.HasSuffix(got, "…") {
		t.Fatalf("excerpt = %q", got)
	}
	if n := utf8.RuneCountInString(got); n > maxExcerpt {
		t.Fatalf("excerpt has %d characters, limit %d", n, maxExcerpt)
	}
	if got := excerpt([]byte("a\xffb")); got != "a\uFFFDb" {
		t.Fatalf("excerpt of invalid UTF-8 = %q", got)
	}
}
