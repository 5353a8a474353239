package command

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/spool"
)

// TestRunStreamsLargeOutputToDisk: a 50 MiB output goes to a file in the
// SpoolDir, redacted and hashed on the way, without being held in memory.
// Not parallel: it counts the bytes the whole test binary allocates, and
// parallel tests wait until the sequential ones are done.
func TestRunStreamsLargeOutputToDisk(t *testing.T) {
	const key = "sk-live-abcdef1234567890"
	const size = 50 << 20
	sh := script(t, `head -c 70000 /dev/zero | tr '\0' a
printf '%s' "$KEY"
head -c `+strconv.Itoa(size)+` /dev/zero | tr '\0' b
printf 'end %s' "$KEY" | head -c 14
`)
	a := newAgent(t, config.Agent{Run: []string{"sh", sh}, Timeout: config.Duration(time.Minute)},
		Options{Environ: []string{"PATH=" + testPath, "LC_ALL=C", "KEY=" + key}, MaxOutput: 64 << 20, Redactor: redact.New(key)})
	dir := t.TempDir()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	resp, err := a.Run(t.Context(), agent.Request{Dir: t.TempDir(), SpoolDir: dir})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Output != "" || resp.Spool == nil {
		t.Fatalf("a %d-byte output was kept in memory (%d bytes), not spooled", size, len(resp.Output))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("capturing a 50 MiB output allocated %d MiB, want at most 16 (holding it would take 50)", alloc>>20)
	}
	data, err := os.ReadFile(resp.Spool.Path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("a", 70000) + "[redacted]" + strings.Repeat("b", size) + "end [redacted]"
	if string(data) != want {
		t.Fatalf("the spooled file holds %d bytes, not the redacted output (%d bytes)", len(data), len(want))
	}
	sum := sha256.Sum256(data)
	if resp.Spool.SHA256 != hex.EncodeToString(sum[:]) || resp.Spool.Size != int64(len(want)) {
		t.Errorf("spool handle %+v does not describe the file", *resp.Spool)
	}
	if filepath.Dir(resp.Spool.Path) != dir || !strings.HasPrefix(filepath.Base(resp.Spool.Path), spool.FilePrefix+"scripted-") {
		t.Errorf("spooled to %s", resp.Spool.Path)
	}
}

// TestRunSpoolRefusesPastMaxOutput: executor.max-output still stops an
// agent whose output streams to disk, and keeps exactly the first bytes.
func TestRunSpoolRefusesPastMaxOutput(t *testing.T) {
	t.Parallel()
	const limit = 3 << 20
	a := newAgent(t, config.Agent{Run: []string{"yes", "0123456789"}, Timeout: config.Duration(time.Minute)},
		Options{MaxOutput: limit, InMemory: 64 << 10, KillGrace: 200 * time.Millisecond})
	resp, err := a.Run(t.Context(), agent.Request{Dir: t.TempDir(), SpoolDir: t.TempDir()})
	e := asAgentError(t, err)
	if e.Class != agent.Systematic || e.Reason != "output_too_large" {
		t.Fatalf("error %v: class %s reason %s, want systematic output_too_large", err, e.Class, e.Reason)
	}
	if resp.Spool == nil {
		t.Fatal("the partial output was not spooled")
	}
	data, err := os.ReadFile(resp.Spool.Path)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("0123456789\n", limit/11+1)[:limit]; string(data) != want {
		t.Fatalf("kept %d bytes, want the first %d", len(data), limit)
	}
}
