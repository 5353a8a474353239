package ledger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var windowBase = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// windowLedger writes a 30-entry ledger, entry i recorded i hours after
// windowBase, sealed in segments of 1–10 and 11–20; 21–30 are active.
// Run entries carry totals: tokens 10·i and, for even i, cost_usd i/100.
func windowLedger(t *testing.T) string {
	t.Helper()
	var drafts []Draft
	for i := 1; i <= 30; i++ {
		f := map[string]any{"tokens": int64(10 * i)}
		if i%2 == 0 {
			f["cost_usd"] = float64(i) / 100
		}
		if i%5 == 0 {
			f["cost_unknown"] = true
		}
		if i == 7 {
			f["tokens"], f["tokens_unknown"] = nil, true
		}
		drafts = append(drafts, Draft{Kind: KindRun, Run: "r" + strings.Repeat("x", i%3), Workflow: "w", Time: windowBase.Add(time.Duration(i) * time.Hour), Fields: f})
	}
	entries, err := Chain(Head{}, drafts...)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := os.MkdirAll(SegmentDir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, es []Entry) {
		if err := os.WriteFile(name, linesOf(t, es), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(SegmentDir(path), SegmentName(1, 10)), entries[:10])
	write(filepath.Join(SegmentDir(path), SegmentName(11, 20)), entries[10:20])
	write(path, entries[20:])
	return path
}

// counting is a Store that notes which segments were read.
type counting struct {
	Local
	mu   sync.Mutex
	read []string
}

func (c *counting) Active(ctx context.Context) (io.ReadCloser, error) {
	c.note("active")
	return c.Local.Active(ctx)
}

func (c *counting) Open(ctx context.Context, s Segment) (io.ReadCloser, error) {
	c.note(filepath.Base(s.Path))
	return c.Local.Open(ctx, s)
}

func (c *counting) note(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.read = append(c.read, s)
}

func TestReadWindowReadsOnlyTheSegmentsItNeeds(t *testing.T) {
	t.Parallel()
	path := windowLedger(t)
	seg2, seg1 := SegmentName(11, 20), SegmentName(1, 10)
	tests := []struct {
		name  string
		since time.Time
		seqs  []int64 // in the order visited
		read  []string
	}{
		{"within the active segment", windowBase.Add(25 * time.Hour), []int64{25, 26, 27, 28, 29, 30}, []string{"active"}},
		{"at the active segment's first entry", windowBase.Add(21 * time.Hour), seqRange(21, 30), []string{"active", seg2}},
		{"into the sealed segments", windowBase.Add(15 * time.Hour), []int64{21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 15, 16, 17, 18, 19, 20},
			[]string{"active", seg2}},
		{"everything", windowBase, seqRange(21, 30, 11, 20, 1, 10), []string{"active", seg2, seg1}},
		{"nothing", windowBase.Add(100 * time.Hour), nil, []string{"active"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := &counting{Local: Local(path)}
			var seqs []int64
			err := ReadWindow(t.Context(), st, tt.since, func(e WindowEntry) error {
				seqs = append(seqs, e.Seq)
				if e.Time.Before(tt.since) {
					t.Errorf("entry %d at %s is before %s", e.Seq, e.Time, tt.since)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.seqs, seqs); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.read, st.read); diff != "" {
				t.Errorf("segments read (-want +got):\n%s", diff)
			}
		})
	}
}

func seqRange(bounds ...int64) []int64 {
	var out []int64
	for i := 0; i < len(bounds); i += 2 {
		for s := bounds[i]; s <= bounds[i+1]; s++ {
			out = append(out, s)
		}
	}
	return out
}

func TestReadWindowTotals(t *testing.T) {
	t.Parallel()
	path := windowLedger(t)
	var got []WindowEntry
	err := ReadWindow(t.Context(), Local(path), windowBase.Add(29*time.Hour), func(e WindowEntry) error {
		e.Line = slices.Clone(e.Line)
		got = append(got, e)
		return nil
	})
	if err != nil || len(got) != 2 {
		t.Fatalf("got %d entries, %v", len(got), err)
	}
	if e := got[0]; e.Seq != 29 || e.Kind != KindRun || e.Run != "rxx" || e.Workflow != "w" || !e.HasTokens || e.Tokens != 290 || e.HasCost {
		t.Errorf("entry 29 = %+v", e)
	}
	if e := got[1]; e.Seq != 30 || !e.HasCost || e.CostUSD != 0.3 || e.Tokens != 300 || !strings.Contains(string(e.Line), `"seq":30`) {
		t.Errorf("entry 30 = %+v", e)
	}
}

func TestReadWindowBadLines(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, edit, want string
	}{
		{"edited", `{"kind":"run"}` + "\n", "ledger.jsonl: line 11: "},
		{"torn", "", "line 11: the last line has no trailing newline"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := windowLedger(t)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if tt.edit != "" {
				data = append(data, tt.edit...)
			} else {
				data = append(data, `{"torn":`...)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			err = ReadWindow(t.Context(), Local(path), windowBase, func(WindowEntry) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "ledger "+path+": ") {
				t.Errorf("ReadWindow = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	missing := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := ReadWindow(t.Context(), Local(missing), windowBase, func(WindowEntry) error { t.Error("an entry in no ledger"); return nil }); err != nil {
		t.Errorf("a missing ledger: %v", err)
	}
}

// TestReadWindowBisects: in a large segment the window's start is found by
// bisection: the entries before it are not read, and none in it is missed.
func TestReadWindowBisects(t *testing.T) {
	t.Parallel()
	const n = 5000
	at := func(i int) time.Time { return windowBase.Add(time.Duration(i) * time.Minute) }
	var buf bytes.Buffer
	if _, err := WriteSyntheticWith(&buf, n, SyntheticOptions{Spend: true, Time: at}); err != nil {
		t.Fatal(err)
	}
	for _, from := range []int{1, 2500, 4990, n - 1} {
		st := &memory{data: buf.Bytes()}
		var seqs []int64
		err := ReadWindow(t.Context(), st, at(from), func(e WindowEntry) error {
			seqs = append(seqs, e.Seq)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(seqs) != n-from || seqs[0] != int64(from+1) {
			t.Errorf("from entry %d: %d entries, the first %v", from, len(seqs), seqs[:min(1, len(seqs))])
		}
		// The window's bytes, the first 64 KiB buffered, and the bisection.
		limit := int64(buf.Len())*int64(n-from)/n + 256<<10
		if st.read.Load() > limit {
			t.Errorf("from entry %d: read %d of %d bytes (more than %d): the entries before the window were read", from, st.read.Load(), buf.Len(), limit)
		}
	}
	// A bad line past the bisected start is named by its offset.
	bad := append(bytes.Clone(buf.Bytes()), "{\"kind\":\"run\"}\n"...)
	err := ReadWindow(t.Context(), &memory{data: bad}, at(4000), func(WindowEntry) error { return nil })
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("the line at byte %d", buf.Len())) {
		t.Errorf("ReadWindow = %v, want the bad line named by its offset", err)
	}
}

// memory is a Store of one active segment held in memory, counting the
// bytes read from it.
type memory struct {
	data []byte
	read atomic.Int64
}

func (m *memory) Active(context.Context) (io.ReadCloser, error) {
	return &countedReader{Reader: bytes.NewReader(m.data), n: &m.read}, nil
}

func (m *memory) Sealed(context.Context) ([]Segment, error) { return nil, nil }

func (m *memory) Open(context.Context, Segment) (io.ReadCloser, error) {
	return nil, errors.New("no sealed segment")
}

// countedReader is a bytes.Reader that counts what is read through it.
type countedReader struct {
	*bytes.Reader
	n *atomic.Int64
}

func (c *countedReader) Close() error { return nil }

func (c *countedReader) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countedReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.Reader.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// The strings of an entry outlive its line: ReadWindow reads the lines in
// place from a buffer it refills, so Kind, Run and Workflow must not point
// into it. Kept past the read, every entry's strings are its own.
func TestReadWindowEntriesOutliveTheirLines(t *testing.T) {
	t.Parallel()
	var drafts []Draft
	for i := range 2000 { // far more than one 64 KiB buffer
		kind := KindRun
		if i%5 == 0 {
			kind = "custom-kind"
		}
		drafts = append(drafts, Draft{Kind: kind, Run: fmt.Sprintf("run-%04d", i), Workflow: fmt.Sprintf("wf-%d", i%7),
			Time: windowBase.Add(time.Duration(i) * time.Minute), Fields: map[string]any{"pad": strings.Repeat("p", 100)}})
	}
	entries, err := Chain(Head{}, drafts...)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := os.WriteFile(path, linesOf(t, entries), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []WindowEntry
	if err := ReadWindow(t.Context(), Local(path), windowBase, func(e WindowEntry) error {
		got = append(got, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(drafts) {
		t.Fatalf("got %d entries, want %d", len(got), len(drafts))
	}
	for i, e := range got {
		if d := drafts[i]; e.Kind != d.Kind || e.Run != d.Run || e.Workflow != d.Workflow {
			t.Fatalf("entry %d kept as %q %q %q, want %q %q %q", i+1, e.Kind, e.Run, e.Workflow, d.Kind, d.Run, d.Workflow)
		}
	}
}

// TestReadWindowUnknownTotals: a total nothing of which is known is null,
// and a total with an unknown part is flagged; ReadWindow tells both.
func TestReadWindowUnknownTotals(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	if _, err := Append(path,
		Draft{Kind: KindRun, Run: "nothing-known", Workflow: "w", Time: windowBase, Fields: map[string]any{"tokens": nil, "cost_usd": nil, "tokens_unknown": true, "cost_unknown": true}},
		Draft{Kind: KindRun, Run: "part-known", Workflow: "w", Time: windowBase, Fields: map[string]any{"tokens": int64(120), "cost_usd": 0.5, "cost_unknown": true}},
	); err != nil {
		t.Fatal(err)
	}
	var got []WindowEntry
	if err := ReadWindow(t.Context(), Local(path), windowBase, func(e WindowEntry) error {
		e.Line = nil
		got = append(got, e)
		return nil
	}); err != nil || len(got) != 2 {
		t.Fatalf("got %d entries, %v", len(got), err)
	}
	if e := got[0]; e.HasTokens || e.HasCost || !e.TokensUnknown || !e.CostUnknown {
		t.Errorf("the run nothing of whose spend is known = %+v", e)
	}
	if e := got[1]; !e.HasTokens || e.Tokens != 120 || !e.HasCost || e.CostUSD != 0.5 || e.TokensUnknown || !e.CostUnknown {
		t.Errorf("the run whose cost is partly known = %+v", e)
	}
}
