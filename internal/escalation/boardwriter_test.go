package escalation

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBoardWriterRateLimited: a hundred changes over ten seconds are
// written at most once per boardInterval, and flush writes the last state
// at once.
func TestBoardWriterRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), FileBlackboard)
		var mu sync.Mutex
		state, encodes := 0, 0
		b := &boardWriter{path: path, log: &logger{}, encode: func() ([]byte, error) {
			mu.Lock()
			defer mu.Unlock()
			encodes++
			return fmt.Appendf(nil, "%d", state), nil
		}}
		for i := 1; i <= 100; i++ {
			mu.Lock()
			state = i
			mu.Unlock()
			b.touch()
			time.Sleep(100 * time.Millisecond)
		}
		start := time.Now()
		b.flush()
		if waited := time.Since(start); waited != 0 {
			t.Errorf("flush waited %s for the pause, want no wait", waited)
		}
		if max := int(10*time.Second/boardInterval) + 2; encodes > max {
			t.Errorf("%d writes for 100 changes over 10 s, want at most %d (one per %s, and the last)", encodes, max, boardInterval)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff("100", string(got)); diff != "" {
			t.Errorf("blackboard after flush (-want +got):\n%s", diff)
		}
	})
}

// TestBoardWriterHeld: while Hold is open, changes are not written; its
// closing writes the latest state at once, and so does a flush that comes
// while it is still open.
func TestBoardWriterHeld(t *testing.T) {
	for _, release := range []string{"closed", "flushed"} {
		t.Run(release, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), FileBlackboard)
				hold := make(chan struct{})
				state := 0
				b := &boardWriter{path: path, log: &logger{}, hold: hold, encode: func() ([]byte, error) {
					return fmt.Appendf(nil, "%d", state), nil
				}}
				for i := 1; i <= 3; i++ {
					state = i
					b.touch()
					synctest.Wait()
				}
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Fatalf("blackboard written while held (stat: %v)", err)
				}
				start := time.Now()
				if release == "closed" {
					close(hold)
					synctest.Wait()
				} else {
					b.flush()
				}
				if waited := time.Since(start); waited != 0 {
					t.Errorf("the write waited %s, want none", waited)
				}
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != "3" {
					t.Errorf("blackboard %q, want the latest state %q", got, "3")
				}
				b.flush()
			})
		})
	}
}
