package executor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/recovery"
	"github.com/optr-dev/optr/internal/spool"
	"github.com/optr-dev/optr/internal/status"
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
			tasks = append(tasks, Task{Agent: agenttest.New(name, func(context.Context, agent.Request) (agent.Response, error) {
				return agent.Response{Spool: f}, nil
			})})
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
	results, err := Run(t.Context(), Options{Tasks: []Task{{Agent: agenttest.New("a", func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Spool: f}, agent.Errorf(agent.Fatal, "output_too_large", "too much")
	})}}})
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

// TestRetriedAgentKeepsOnlyItsLastSpool: every attempt spools its output;
// the file of an attempt that was retried (recovery) and of a launch that
// was relaunched (its raw output) are removed once replaced, so the agent
// leaves only its last attempt's file.
func TestRetriedAgentKeepsOnlyItsLastSpool(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var mu sync.Mutex
	calls := 0
	// Two launches of two attempts each: the first attempt of each fails
	// transiently and is retried; the first launch's second attempt fails
	// too and the launch is restarted; the last attempt succeeds.
	a := agenttest.New("a", func(context.Context, agent.Request) (agent.Response, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		w := spool.New(spool.Options{Dir: dir})
		_, _ = fmt.Fprintf(w, "attempt %d", n)
		out, err := w.Close()
		if err != nil || out.File == nil {
			return agent.Response{}, fmt.Errorf("spool attempt %d: %v", n, err)
		}
		if n < 4 {
			return agent.Response{Spool: out.File}, agent.Errorf(agent.Transient, "rate_limited", "attempt %d: try again", n)
		}
		return agent.Response{Spool: out.File}, nil
	})
	restarts := 0
	results, err := Run(t.Context(), Options{Tasks: []Task{{Agent: a}}, Policy: recovery.Policy{Attempts: 2}, MaxRestarts: 1,
		Failed: func(escalation.Failure) escalation.Escalation {
			restarts++
			return escalation.Escalation{Decision: escalation.Decision{Action: escalation.Restart}}
		}})
	if err != nil {
		t.Fatal(err)
	}
	r := results[0]
	if r.Status != status.Succeeded || r.Restarts != 1 || restarts != 1 || calls != 4 || r.OutputFile == nil {
		t.Fatalf("%s after %d restarts (%d asked), %d attempts, file %v: %s", r.Status, r.Restarts, restarts, calls, r.OutputFile, r.Error)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if len(left) != 1 || filepath.Join(dir, left[0]) != r.OutputFile.Path {
		t.Errorf("spool files left %v, want only %s", left, filepath.Base(r.OutputFile.Path))
	}
	if text, err := r.OutputFile.ReadString(); text != "attempt 4" || err != nil {
		t.Errorf("the output is %q, %v; want the last attempt's", text, err)
	}
}
