package executor

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/spool"
)

// sizeCheck passes an output that ends with "END"; it notes how many
// checks of it run at once, holding each for a second of the bubble's
// clock.
type sizeCheck struct {
	mu          sync.Mutex
	inside, max int
	sizes       []int
}

func (c *sizeCheck) Check(_ context.Context, output string) (check.Outcome, error) {
	c.mu.Lock()
	c.inside++
	c.max = max(c.max, c.inside)
	c.sizes = append(c.sizes, len(output))
	c.mu.Unlock()
	time.Sleep(time.Second)
	c.mu.Lock()
	c.inside--
	c.mu.Unlock()
	return check.Outcome{Pass: strings.HasSuffix(output, "END")}, nil
}

// TestSpooledOutputsCheckedOneAtATime: outputs held on disk are checked
// whole (the checks see every byte, not an excerpt), and only one of them
// is read into memory at a time; the result names the file and its hash.
func TestSpooledOutputsCheckedOneAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		text := strings.Repeat("x", 2<<20) + "END"
		var tasks []Task
		for _, name := range []string{"a", "b", "c", "d"} {
			f := spooled(t, text)
			tasks = append(tasks, Task{Agent: funcAgent{name, func(context.Context) (agent.Response, error) {
				return agent.Response{Spool: f}, nil
			}}})
		}
		sc := &sizeCheck{}
		results, err := Run(t.Context(), Options{Tasks: tasks,
			Constraints: []check.Constraint{{Name: "ends", Hard: true, Checker: sc}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			if r.Output != "" || r.OutputFile == nil || r.OutputSHA256 != SHA256Hex(text) || !r.HasOutput() || !r.Checks.Admissible {
				t.Errorf("%s: output %d bytes in memory, file %v, sha %s, admissible %t", r.Agent, len(r.Output), r.OutputFile, r.OutputSHA256, r.Checks.Admissible)
			}
		}
		if sc.max != 1 || len(sc.sizes) != 4 {
			t.Errorf("%d checks, at most %d at once; want 4, one at a time", len(sc.sizes), sc.max)
		}
		for _, n := range sc.sizes {
			if n != len(text) {
				t.Errorf("a check saw %d bytes, want %d", n, len(text))
			}
		}
	})
}

// A failed agent's spooled output is kept as its raw text, not offered as
// a candidate.
func TestSpooledPartialOutputIsRaw(t *testing.T) {
	t.Parallel()
	f := spooled(t, strings.Repeat("p", 300<<10))
	results, err := Run(t.Context(), Options{Tasks: []Task{{Agent: funcAgent{"a", func(context.Context) (agent.Response, error) {
		return agent.Response{Spool: f}, agent.Errorf(agent.Fatal, "output_too_large", "too much")
	}}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := results[0]
	if r.HasOutput() || r.RawFile != f || r.OutputSHA256 != SHA256Hex("") {
		t.Fatalf("has output %t, raw file %v, sha %s", r.HasOutput(), r.RawFile, r.OutputSHA256)
	}
	if p := r.Partial(); len(p) != spool.ExcerptMax || r.partialRunes() != 300<<10 {
		t.Errorf("Partial gave %d bytes of %d characters", len(p), r.partialRunes())
	}
}
