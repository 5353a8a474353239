package ledger

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Large ledgers are built once per test binary and removed by TestMain.
var bench struct {
	mu    sync.Mutex
	dir   string
	files map[string]string
}

// benchLedger returns the path of a synthetic ledger of n entries, a fresh
// copy per name so that appends in one benchmark do not change another's.
func benchLedger(b *testing.B, name string, n int) string {
	b.Helper()
	bench.mu.Lock()
	defer bench.mu.Unlock()
	if p, ok := bench.files[name]; ok {
		return p
	}
	if bench.dir == "" {
		dir, err := os.MkdirTemp("", "ledger-bench-")
		if err != nil {
			b.Fatal(err)
		}
		bench.dir, bench.files = dir, map[string]string{}
	}
	p := filepath.Join(bench.dir, name+".jsonl")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := WriteSynthetic(f, n); err != nil {
		b.Fatal(err)
	}
	// Sync now: otherwise the first Append's fsync flushes the whole fresh
	// file and is charged to the benchmark.
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	bench.files[name] = p
	return p
}

func cleanupBenchFiles() {
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
}

func BenchmarkVerify1M(b *testing.B) {
	path := benchLedger(b, "verify-1m", 1_000_000)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	for b.Loop() {
		s, err := VerifyFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if s.Entries != 1_000_000 {
			b.Fatalf("verified %d entries, want 1000000", s.Entries)
		}
	}
}

// BenchmarkAppend appends one entry per iteration to ledgers of 10 and of a
// million entries: the cost must not depend on the size.
func BenchmarkAppend(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
	}{{"entries=10", 10}, {"entries=1M", 1_000_000}} {
		b.Run(c.name, func(b *testing.B) {
			path := benchLedger(b, "append-"+c.name, c.n)
			d := Draft{Kind: KindRun, Run: "bench-1", Workflow: "bench", Time: time.Now(),
				Fields: map[string]any{"selected": "claude", "results": []any{}}}
			for b.Loop() {
				if _, err := Append(path, d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTailHead isolates what Append reads (the last line) from the
// fsync that dominates Append's time.
func BenchmarkTailHead(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
	}{{"entries=10", 10}, {"entries=1M", 1_000_000}} {
		b.Run(c.name, func(b *testing.B) {
			path := benchLedger(b, "tail-"+c.name, c.n)
			for b.Loop() {
				if _, err := TailHead(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSyntheticGenerate(b *testing.B) {
	for b.Loop() {
		if _, err := WriteSynthetic(io.Discard, 10_000); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyInMemory measures Verify without the disk: its CPU cost per
// byte, against BenchmarkSHA256InMemory on the same bytes.
func BenchmarkVerifyInMemory(b *testing.B) {
	data := syntheticBytes(b, 100_000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Verify(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSHA256InMemory(b *testing.B) {
	data := syntheticBytes(b, 100_000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sha256.Sum256(data)
	}
}

func syntheticBytes(tb testing.TB, n int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if _, err := WriteSynthetic(&buf, n); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkVerifyTreeSegmented is `optr ledger verify`'s work on the layout
// the Action keeps: sealed segments of about 8 MiB with their tree files,
// then the active segment.
func BenchmarkVerifyTreeSegmented(b *testing.B) {
	const n = 100_000
	data, _ := synthetic(b, n)
	perSegment := int(int64(n) * SegmentLimit / int64(len(data)))
	var cuts []int
	for c := perSegment; c < n; c += perSegment {
		cuts = append(cuts, c)
	}
	path := segmented(b, data, cuts...)
	writeTrees(b, path)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s, err := VerifyTree(path)
		if err != nil {
			b.Fatal(err)
		}
		if s.Entries != n {
			b.Fatalf("verified %d entries, want %d", s.Entries, n)
		}
	}
}

// BenchmarkParseLine measures the canonical-JSON and member checks of
// every line alone, the verifier's largest cost.
func BenchmarkParseLine(b *testing.B) {
	lines := splitLines(syntheticBytes(b, 10_000))
	var size int64
	for _, l := range lines {
		size += int64(len(l))
	}
	b.SetBytes(size)
	for b.Loop() {
		for _, l := range lines {
			if _, err := parseLine(l[:len(l)-1]); err != nil {
				b.Fatal(err.reason)
			}
		}
	}
}
