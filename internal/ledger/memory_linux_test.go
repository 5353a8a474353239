//go:build linux

package ledger

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestVerifyMemoryBounded verifies a ledger larger than the memory budget
// (64 MiB) in a process of its own and checks that process's peak RSS:
// Verify must stream, not load the file.
func TestVerifyMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 130 MB ledger")
	}
	if raceEnabled {
		t.Skip("the race detector multiplies memory use")
	}
	t.Parallel()
	const entries = 120_000 // about 130 MB
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteSynthetic(f, entries); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=verify", "OPTR_LEDGER_PATH="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("verify process: %v: %s", err, out)
	}
	var n, rss int64
	if _, err := fmt.Sscan(string(out), &n, &rss); err != nil {
		t.Fatalf("verify process said %q: %v", out, err)
	}
	if n != entries {
		t.Errorf("verified %d entries, want %d", n, entries)
	}
	if rss <= 0 {
		t.Fatalf("no peak RSS from the verify process: %q", out)
	}
	const limit = 64 << 20
	t.Logf("peak RSS verifying %d entries: %.1f MiB", entries, float64(rss)/(1<<20))
	if rss > limit {
		t.Errorf("peak RSS %d bytes, want at most %d", rss, limit)
	}
}
