package escalation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCommandOneShot(t *testing.T) {
	t.Parallel()
	dir := coordDir(t, map[string]string{FileEscalate: seedEscalation})
	var stderr syncBuffer
	err := Command(t.Context(), CommandOptions{Dir: dir, Timeout: time.Nanosecond, Handle: HandleOptions{Stderr: &stderr}})
	if err != nil {
		t.Fatalf("Command: %v", err)
	}
	if !strings.Contains(readFile(t, filepath.Join(dir, FileDecision)), "**Decision:** restart") {
		t.Errorf("decision.md does not say restart")
	}
	checkLogLines(t, stderr.String())
}

func TestCommandDefaultDir(t *testing.T) {
	// Not parallel: it changes the working directory.
	root := t.TempDir()
	t.Chdir(root)
	if err := os.MkdirAll(DefaultCoordinationDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(DefaultCoordinationDir, FileEscalate), []byte(seedEscalation), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Command(t.Context(), CommandOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, DefaultCoordinationDir, FileDecision)); err != nil {
		t.Errorf("no decision.md in ./.coordination: %v", err)
	}
}

func TestCommandWatch(t *testing.T) {
	t.Parallel()
	dir := coordDir(t, nil)
	watching := make(chan struct{})
	stderr := &signalWriter{on: "watching ", signal: watching}
	go func() { // tier 1 escalates once the handler says it watches
		<-watching
		_ = os.WriteFile(filepath.Join(dir, ".escalate.tmp"), []byte(seedEscalation), 0o644)
		_ = os.Rename(filepath.Join(dir, ".escalate.tmp"), filepath.Join(dir, FileEscalate))
	}()
	// The timeout leaves the handler many polls after the escalation
	// lands, however loaded the machine.
	const timeout = 2 * time.Second
	start := time.Now()
	err := Command(t.Context(), CommandOptions{Dir: dir, Watch: true, Interval: 10 * time.Millisecond, Timeout: timeout,
		Handle: HandleOptions{Stderr: stderr}})
	if err != nil {
		t.Fatalf("Command --watch: %v", err)
	}
	if el := time.Since(start); el < timeout {
		t.Errorf("watch ran %s, want at least its %s timeout", el, timeout)
	}
	if got := listDir(t, filepath.Join(dir, DirArchive)); len(got) != 1 {
		t.Errorf("archive = %v, want the one escalation", got)
	}
	checkLogLines(t, stderr.String())
}

// signalWriter is a log that closes signal when a line containing on has
// been written.
type signalWriter struct {
	syncBuffer
	on     string
	signal chan struct{}
	once   sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	n, err := w.syncBuffer.Write(p)
	if strings.Contains(w.String(), w.on) {
		w.once.Do(func() { close(w.signal) })
	}
	return n, err
}

func TestWatchCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("interrupted")
	time.AfterFunc(30*time.Millisecond, func() { cancel(cause) })
	err := Watch(ctx, coordDir(t, nil), 10*time.Millisecond, 0, HandleOptions{})
	if !errors.Is(err, cause) {
		t.Errorf("Watch = %v, want the cancellation cause", err)
	}
}

func TestCommandErrors(t *testing.T) {
	t.Parallel()
	if err := Command(t.Context(), CommandOptions{Interval: -time.Second}); err == nil {
		t.Error("a negative interval was accepted")
	}
	// An escalate.md that cannot be read is an error, not "nothing to do".
	dir := coordDir(t, nil)
	if err := os.Mkdir(filepath.Join(dir, FileEscalate), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Command(t.Context(), CommandOptions{Dir: dir}); err == nil {
		t.Error("an unreadable escalate.md gave no error")
	}
	if err := Command(t.Context(), CommandOptions{Dir: dir, Watch: true, Interval: time.Millisecond, Timeout: time.Second}); err == nil {
		t.Error("--watch on an unreadable escalate.md gave no error")
	}
}
