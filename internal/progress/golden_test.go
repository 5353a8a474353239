package progress

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// golden compares got with testdata/name, or rewrites the file when
// UPDATE_GOLDEN=1.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	views := map[string]View{
		"running":   runningView(),
		"completed": completedView(),
		"failed":    failedView(),
		"paused":    pausedView(),
	}
	for name, v := range views {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			golden(t, "comment_"+name+".golden", Comment(v))
			golden(t, "summary_"+name+".golden", Summary(v))
		})
	}
	golden(t, "texttable_completed.golden", TextTable(completedView().Table, "codex"))
}
