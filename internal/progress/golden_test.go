package progress

import (
	"testing"

	"github.com/optr-dev/optr/internal/testkit/golden"
)

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
			golden.Check(t, "comment_"+name+".golden", Comment(v))
			golden.Check(t, "summary_"+name+".golden", Summary(v))
		})
	}
	golden.Check(t, "texttable_completed.golden", TextTable(completedView().Table, "codex"))
}
