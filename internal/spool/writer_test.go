package spool

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
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
	out := feed(t, New(Options{Dir: dir, Prefix: ".spool-a-", Suffix: ".out", InMemory: 1 << 16, Redactor: red}), text, 4096)
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
	if !strings.HasPrefix(filepath.Base(out.File.Path), ".spool-a-") || filepath.Dir(out.File.Path) != dir {
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
