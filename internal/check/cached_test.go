package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/status"
)

// runs counts the lines a counting command check appended to its log.
func runs(t *testing.T, log string) int {
	t.Helper()
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

// countingConfig is a run's config with a regex and a command check that
// logs every run of itself to dir/log and passes when the output says yes.
func countingConfig() *config.Config {
	return &config.Config{
		Constraints: map[string]config.Constraint{
			"word": {Check: "regex", Pattern: "^[a-z ]+$", Hard: true},
			"yes":  {Check: "command", Run: []string{"sh", "-c", "echo run >> log; grep -q yes"}, Hard: true},
		},
		ConstraintNames: []string{"word", "yes"},
	}
}

// TestVerdictCacheAcrossARun: the outputs of a run share the cache, so a
// command check runs once per distinct output, however many agents gave it.
func TestVerdictCacheAcrossARun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cs, err := Resolve(countingConfig(), nil, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	outputs := []string{"say yes", "say no", "say yes", "say yes", "say no", "say yes"}
	admissible := make([]bool, len(outputs))
	var wg sync.WaitGroup
	for i, out := range outputs {
		wg.Go(func() { admissible[i] = Evaluate(t.Context(), cs, out).Admissible })
	}
	wg.Wait()
	if got := runs(t, filepath.Join(dir, "log")); got != 2 {
		t.Errorf("the command check ran %d times for 2 distinct outputs, want 2", got)
	}
	want := []bool{true, false, true, true, false, true}
	if diff := cmp.Diff(want, admissible); diff != "" {
		t.Errorf("admissible (-want +got):\n%s", diff)
	}
}

// TestVerdictCacheInAResultsDirectory: a command check in a result's own
// directory (code changes) is cached only by output and patch together.
func TestVerdictCacheInAResultsDirectory(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		patches []string // "" = no WithPatch
		want    int
	}{
		{"patch unknown: always runs", []string{"", "", ""}, 3},
		{"same patch: runs once", []string{"p1", "p1", "p1"}, 1},
		{"different patches: once each", []string{"p1", "p2", "p1"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tree := t.TempDir()
			cs, err := Resolve(countingConfig(), nil, Options{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tc.patches {
				ctx := WithDir(t.Context(), tree)
				if p != "" {
					ctx = WithPatch(ctx, p)
				}
				if ev := Evaluate(ctx, cs, "say yes"); !ev.Admissible {
					t.Fatalf("not admissible: %+v", ev.Verdicts)
				}
			}
			if got := runs(t, filepath.Join(tree, "log")); got != tc.want {
				t.Errorf("the command check ran %d times, want %d", got, tc.want)
			}
		})
	}
}

// TestVerdictCacheKeepsErrors: a check that could not run is asked again.
func TestVerdictCacheKeepsErrors(t *testing.T) {
	t.Parallel()
	// Built without Resolve, whose preflight refuses a missing schema: a
	// schema removed after the run started.
	cs := []Constraint{{Name: "s", Checker: mustNew(t, "s", config.Constraint{Check: "json-schema", Schema: "missing.json"}, Options{Dir: t.TempDir()})}}
	for range 2 {
		if v := Evaluate(t.Context(), cs, "{}").Verdicts[0]; v.Status != status.Unverified {
			t.Fatalf("verdict %+v, want unverified", v)
		}
	}
	if got := cs[0].Checker.(cachedCheck).cache.Judged(); got != 2 {
		t.Errorf("the failing check ran %d times, want 2 (errors are not cached)", got)
	}
}

// gate is a Checker that blocks until released and records how many run
// at once.
type gate struct {
	release chan struct{}
	mu      sync.Mutex
	now     int
	most    int
}

func (g *gate) Check(ctx context.Context, _ string) (Outcome, error) {
	g.mu.Lock()
	g.now++
	g.most = max(g.most, g.now)
	g.mu.Unlock()
	<-g.release
	g.mu.Lock()
	g.now--
	g.mu.Unlock()
	return Outcome{Pass: true}, nil
}

// TestCommandChecksBounded: a run's command checks run at most
// maxCommandChecks at once; the rest wait for a slot.
func TestCommandChecksBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gate{release: make(chan struct{})}
		ch := cachedCheck{Checker: g, name: "c", cache: NewVerdicts(), command: true}
		n := maxCommandChecks() + 3
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if _, err := ch.Check(t.Context(), strings.Repeat("x", i+1)); err != nil {
					t.Error(err)
				}
			})
		}
		synctest.Wait()
		g.mu.Lock()
		running := g.now
		g.mu.Unlock()
		if running != maxCommandChecks() {
			t.Errorf("%d command checks run at once, want %d", running, maxCommandChecks())
		}
		close(g.release)
		wg.Wait()
		if g.most != maxCommandChecks() {
			t.Errorf("at most %d ran at once, want %d", g.most, maxCommandChecks())
		}
	})
}
