package spool

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/redact"
)

// feed writes text in pieces of size n and closes the Writer.
func feed(t *testing.T, w *Writer, text string, n int) Output {
	t.Helper()
	for len(text) > 0 {
		k := min(n, len(text))
		if got, err := w.Write([]byte(text[:k])); got != k || err != nil {
			t.Fatalf("Write = %d, %v", got, err)
		}
		text = text[k:]
	}
	out, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestWriterKeepsSmallOutputsInMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := feed(t, New(Options{Dir: dir, InMemory: 100, Redactor: redact.New("sk-secret-123456")}), "a sk-secret-123456 b", 3)
	if diff := cmp.Diff(Output{Text: "a [redacted] b"}, out); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a small output left %d files", len(ents))
	}
}

func TestWriterSpoolsLargeOutputs(t *testing.T) {
	t.Parallel()
	const key = "sk-live-abcdef1234567890"
	red := redact.New(key)
	// A key split across writes of 4096 bytes, and characters of every
	// width split too.
	text := strings.Repeat("héllo wörld €𝄞 ", 40000)
	at := 4090
	for !utf8.RuneStart(text[at]) {
		at--
	}
	text = text[:at] + key + text[at:] + key[:12]
	dir := t.TempDir()
	out := feed(t, New(Options{Dir: dir, Prefix: "a-", Suffix: ".out", InMemory: 1 << 16, Redactor: red}), text, 4096)
	if out.File == nil {
		t.Fatalf("a %d-byte output was not spooled", len(text))
	}
	want := red.String(text)
	data, err := os.ReadFile(out.File.Path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != want || strings.Contains(string(data), key[:12]) {
		t.Fatal("the spooled file is not the redacted output")
	}
	if !strings.HasPrefix(filepath.Base(out.File.Path), FilePrefix+"a-") || filepath.Dir(out.File.Path) != dir {
		t.Errorf("spooled to %s", out.File.Path)
	}
	got := *out.File
	got.Path = ""
	wantFile := File{Size: int64(len(want)), SHA256: sum(want), Runes: int64(len([]rune(want))), ValidUTF8: true, Excerpt: Head(want, ExcerptMax)}
	if diff := cmp.Diff(wantFile, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if !utf8.ValidString(got.Excerpt) || len(got.Excerpt) > ExcerptMax || len(got.Excerpt) < ExcerptMax-3 {
		t.Errorf("excerpt of %d bytes", len(got.Excerpt))
	}
}

func TestWriterCountsInvalidUTF8(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		strings.Repeat("ab\xff€", 1000),
		strings.Repeat("€", 1000) + "\xe2\x82",
		strings.Repeat("x\xe2\x82y", 1000),
	} {
		for _, n := range []int{1, 2, 5, 4096} {
			out := feed(t, New(Options{Dir: t.TempDir(), InMemory: 10}), text, n)
			if out.File.Runes != int64(len([]rune(text))) || out.File.ValidUTF8 != utf8.ValidString(text) {
				t.Errorf("chunks of %d: runes %d valid %t, want %d %t", n, out.File.Runes, out.File.ValidUTF8, len([]rune(text)), utf8.ValidString(text))
			}
		}
	}
}

func TestWriterRefusesPastMax(t *testing.T) {
	t.Parallel()
	overs := 0
	// 3-byte characters: the cut at 10 bytes splits one, which is dropped.
	w := New(Options{Dir: t.TempDir(), Max: 10, InMemory: 4, OnOver: func() { overs++ }})
	out := feed(t, w, strings.Repeat("€", 10), 2)
	if !w.Over() || overs != 1 {
		t.Errorf("Over = %t after %d OnOver calls", w.Over(), overs)
	}
	data, err := os.ReadFile(out.File.Path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "€€€" || out.File.Size != 9 {
		t.Errorf("kept %q (%d bytes), want the first three characters", data, out.File.Size)
	}
}

// TestWriterGrowsByDoubling: a 50 MiB output kept in memory (no Dir),
// written in 64 KiB pieces, is kept whole; its storage is reallocated
// (its bytes copied) only about log2(50 MiB / 64 KiB) times, not the
// dozens of times a quarter's growth takes, and Close hands it over
// without a copy. Not parallel: it measures the heap.
func TestWriterGrowsByDoubling(t *testing.T) {
	piece := []byte(strings.Repeat("0123456789abcdef", 4096)) // 64 KiB
	const pieces = 800                                        // 50 MiB
	const size = pieces * 64 << 10
	w := New(Options{Max: 64 << 20})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	grows, lastCap := 0, 0
	for range pieces {
		if n, err := w.Write(piece); n != len(piece) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
		if c := w.sink.mem.Cap(); c != lastCap {
			grows, lastCap = grows+1, c
		}
	}
	out, err := w.Close()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Text) != size || out.Text[:len(piece)] != string(piece) || out.Text[size-len(piece):] != string(piece) || out.File != nil {
		t.Fatalf("kept %d bytes (file %v), want %d, intact, in memory", len(out.Text), out.File, size)
	}
	if grows > 12 {
		t.Errorf("the output was reallocated %d times, want at most 12", grows)
	}
	// Doubling allocates about 2.6 times the output here (the last
	// storage is 64 MiB); a quarter's growth and a copy at Close took 6.
	if got := after.TotalAlloc - before.TotalAlloc; got > 3*size {
		t.Errorf("keeping %d MiB allocated %d MiB, want at most %d", size>>20, got>>20, 3*size>>20)
	}
}

// TestWriterCountsSplitCharacters: characters of every width, valid or
// not, split across two or three writes at every pair of byte boundaries,
// are counted as in the whole text.
func TestWriterCountsSplitCharacters(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"aé€𝄞b𝄞€éz",
		"\xf0\x9f\x98x\xe2\x82\xff€\xc3\xf0\x9f\x98\x80\x80\xe2",
	} {
		want := int64(utf8.RuneCountInString(text))
		for i := 0; i <= len(text); i++ {
			for j := i; j <= len(text); j++ {
				s := sink{opts: &Options{}, hash: sha256.New(), valid: true}
				for _, p := range []string{text[:i], text[i:j], text[j:]} {
					if _, err := s.Write([]byte(p)); err != nil {
						t.Fatal(err)
					}
				}
				out, err := s.close(nil)
				if err != nil {
					t.Fatal(err)
				}
				if s.runes != want || s.valid != utf8.ValidString(text) || out.Text != text {
					t.Errorf("%q cut at %d and %d: %d characters, valid %t, kept %q; want %d, %t",
						text, i, j, s.runes, s.valid, out.Text, want, utf8.ValidString(text))
				}
			}
		}
	}
}

// TestHead: the longest prefix of at most max bytes that ends between
// characters.
func TestHead(t *testing.T) {
	t.Parallel()
	text := "aé€𝄞b𝄞€éz"
	for n := 0; n <= len(text)+1; n++ {
		want := text[:min(n, len(text))]
		for !utf8.ValidString(want) {
			want = want[:len(want)-1]
		}
		if got := Head(text, n); got != want {
			t.Errorf("Head(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestFileTail: the last n bytes of a file, from the first character that
// starts in them; a file read whole is returned whole, and a file changed
// since it was written is an error.
func TestFileTail(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"aé€𝄞b𝄞€éz", "\x80\x80tail"} {
		w := New(Options{Dir: t.TempDir()})
		out := feed(t, w, text, 5)
		for n := int64(0); n <= int64(len(text))+1; n++ {
			want := text[max(0, int64(len(text))-n):]
			if n < int64(len(text)) {
				for want != "" && !utf8.RuneStart(want[0]) {
					want = want[1:]
				}
			}
			if got, err := out.File.Tail(n); got != want || err != nil {
				t.Errorf("%q: Tail(%d) = %q, %v; want %q", text, n, got, err, want)
			}
		}
		if err := os.WriteFile(out.File.Path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := out.File.Tail(4); err == nil {
			t.Errorf("Tail of a changed file = %q, want an error", got)
		}
	}
}

// TestStart: the continuation bytes of a character cut at the start are
// skipped, at most utf8.UTFMax-1 of them (more are invalid bytes of their
// own).
func TestStart(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{
		"": 0, "a": 0, "€": 0, "\x82\xac": 2, "\x82\xacz": 2, "\x9d\x84\x9ez": 3, "\x80\x80\x80\x80z": 3,
	} {
		if got := Start([]byte(in)); got != want {
			t.Errorf("Start(%q) = %d, want %d", in, got, want)
		}
	}
}
