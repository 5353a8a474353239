package standings

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
)

// Standings are of a ledger that verifies: a changed value, a duplicated
// key or invalid UTF-8 in the window is an error naming the path and the
// line; ReadUnverified reads it all the same and says so.
func TestReadVerifies(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, old, new, want string }{
		{"a changed cost", `"cost_usd":0.03`, `"cost_usd":0.003`, "line 2: hash is"},
		{"a duplicated key", `"selected":"claude"`, `"selected":"claude","selected":"codex"`, "not in RFC 8785 canonical form"},
		{"invalid UTF-8", `"workflow":"issue-2"`, "\"workflow\":\"issue-\xff\"", "invalid UTF-8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := seeded(t)
			data, err := os.ReadFile(path)
			if err != nil || !bytes.Contains(data, []byte(tt.old)) {
				t.Fatalf("the seeded ledger holds no %s (%v)", tt.old, err)
			}
			if err := os.WriteFile(path, bytes.Replace(data, []byte(tt.old), []byte(tt.new), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Read(t.Context(), ledger.Local(path), since, until)
			if err == nil || !strings.Contains(err.Error(), "ledger "+path+": line ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Read = %v; want an error naming %s, the line and %q", err, path, tt.want)
			}
			s, err := ReadUnverified(t.Context(), ledger.Local(path), since, until)
			if err != nil || s.Verified || s.Runs != 3 {
				t.Fatalf("ReadUnverified = %+v, %v", s, err)
			}
			var b bytes.Buffer
			if err := Text(&b, s, ByAgent); err != nil || !strings.Contains(b.String(), "not verified (--no-verify)") {
				t.Errorf("the table of an unverified ledger does not say so:\n%s", b.String())
			}
			if md := Markdown(s, "a month"); !strings.Contains(md, "not verified") {
				t.Errorf("the summary of an unverified ledger does not say so:\n%s", md)
			}
		})
	}
}

// Names the ledger recorded reach neither a terminal nor the page with
// their control or format characters: an escape sequence, a bidi
// override.
func TestNamesAreShownInert(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	evil := "ev\x1b[31mil\u202egnp.exe\u200b"
	at := until.Add(-time.Hour)
	if _, err := ledger.Append(path, runDraft("r1", "issue-1", at, "completed", evil, []any{"c\u202e"},
		result(evil, true, 10, []string{"c\u202e"}, outputX, 1, 1, 0.1))); err != nil {
		t.Fatal(err)
	}
	s := read(t, path)
	var out bytes.Buffer
	for _, by := range Bys {
		if err := Text(&out, s, by); err != nil {
			t.Fatal(err)
		}
	}
	page, err := HTML(s)
	if err != nil {
		t.Fatal(err)
	}
	for what, b := range map[string][]byte{"the table": out.Bytes(), "the page": page} {
		for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u200b"} {
			if bytes.Contains(b, []byte(bad)) {
				t.Errorf("%s holds %q:\n%q", what, bad, b)
			}
		}
		if !bytes.Contains(b, []byte("gnp.exe")) {
			t.Errorf("%s lost the name's text", what)
		}
	}
}

// The page's charts over time draw every agent, the ninth and later ones
// included (a dashed line of a colour already used), each named in the
// legend.
func TestPageDrawsEveryAgent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	var results []any
	for i := range 11 {
		results = append(results, result(fmt.Sprintf("agent-%02d", i), true, int64(100+i), nil, outputX, 1, 1, float64(i)/100))
	}
	var drafts []ledger.Draft
	for d := range 3 {
		drafts = append(drafts, runDraft(fmt.Sprintf("r%d", d), "issue-1", until.Add(-time.Duration(72-24*d)*time.Hour), "completed", "agent-00", nil, results...))
	}
	if _, err := ledger.Append(path, drafts...); err != nil {
		t.Fatal(err)
	}
	page, err := HTML(read(t, path))
	if err != nil {
		t.Fatal(err)
	}
	p := string(page)
	if n := strings.Count(p, "<polyline"); n != 22 {
		t.Errorf("%d lines over time, want 22: 11 agents in each of two charts", n)
	}
	for i := range 11 {
		if n := strings.Count(p, fmt.Sprintf(">agent-%02d</text>", i)); n < 3 { // the win-rate and cost bars, and the legends
			t.Errorf("agent-%02d is named %d times in the charts, want at least 3", i, n)
		}
	}
	if !strings.Contains(p, `stroke-dasharray="6 3"`) {
		t.Error("the ninth agent's line is not told apart by its dashes")
	}
}
