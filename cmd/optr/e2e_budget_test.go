package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
)

// TestBudgetSumsOnlyWhatVerifies, through the binary: a month's budget
// already spent by a recorded run refuses `optr run`; a ledger that lowers
// that spend — by an edit far (more than 64 KiB) before its end, by a
// re-chained entry with a negative cost, or by a later, re-chained entry
// of the same run that records $0 — refuses it too, naming the entry,
// instead of letting the agents spend (issue 37, finding 8).
func TestBudgetSumsOnlyWhatVerifies(t *testing.T) {
	t.Parallel()
	// The entries are recorded now, and the budget is the month's: they
	// stay in its window unless the test straddles a month's end.
	now := time.Now().UTC()
	run := func(id string, usd float64, pad int) ledger.Draft {
		return ledger.Draft{Kind: ledger.KindRun, Run: id, Workflow: "local", Time: now, Fields: map[string]any{
			"tokens": int64(1000), "cost_usd": usd, "results": []any{}, "note": strings.Repeat("x", pad)}}
	}
	chain := func(t *testing.T, drafts ...ledger.Draft) []byte {
		t.Helper()
		entries, err := ledger.Chain(ledger.Head{}, drafts...)
		if err != nil {
			t.Fatal(err)
		}
		var out []byte
		for _, e := range entries {
			line, err := e.Line()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, line...)
		}
		return out
	}
	fillers := func() []ledger.Draft {
		var out []ledger.Draft
		for i := range 80 { // 80 entries of about 1 KiB: the spend is far from the end
			out = append(out, run("filler-"+string(rune('a'+i%26))+string(rune('a'+i/26)), 0, 1000))
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		ledger func(t *testing.T) []byte
		says   []string
	}{
		{"the spend as recorded", func(t *testing.T) []byte {
			return chain(t, append([]ledger.Draft{run("spent", 5, 0)}, fillers()...)...)
		}, []string{"budget.max-usd-per-month: $5.00 of $1.00 spent"}},
		{"the spend edited to $0 far before the end", func(t *testing.T) []byte {
			data := chain(t, append([]ledger.Draft{run("spent", 5, 0)}, fillers()...)...)
			if !bytes.Contains(data, []byte(`"cost_usd":5,`)) {
				t.Fatal("no cost_usd 5 to edit")
			}
			return bytes.Replace(data, []byte(`"cost_usd":5,`), []byte(`"cost_usd":0,`), 1)
		}, []string{"line 1", "hash"}},
		{"a re-chained refund of $100", func(t *testing.T) []byte {
			return chain(t, run("spent", 5, 0), run("refund", -100, 0))
		}, []string{"ledger entry 2 (run refund)", "negative"}},
		{"a later entry of the run that records $0", func(t *testing.T) []byte {
			return chain(t, run("spent", 5, 0), run("spent", 0, 0))
		}, []string{"ledger entry 2 (run spent)", "less than entry 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			lake := filepath.Join(dir, ".optr")
			os.MkdirAll(lake, 0o755)
			marker := filepath.Join(dir, "agent-ran")
			os.WriteFile(filepath.Join(dir, "agent.sh"), []byte("cat >/dev/null\ntouch "+marker+"\necho done\n"), 0o755)
			os.WriteFile(filepath.Join(dir, "optr.yml"), []byte("agents:\n  solo: {provider: command, run: [sh, agent.sh]}\nbudget: {max-usd-per-month: 1}\n"), 0o644)
			path := filepath.Join(lake, "ledger.jsonl")
			before := tc.ledger(t)
			os.WriteFile(path, before, 0o644)
			code, out, errOut := optrIn(t, dir, nil, "run", "--config", "optr.yml", "--datalake", lake, "--intent", "hello", "--interactive", "never")
			if code != 2 {
				t.Errorf("exit %d; want 2 (refused before any agent)\n%s%s", code, out, errOut)
			}
			for _, s := range tc.says {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr does not say %q:\n%s", s, errOut)
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the agent ran")
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("the ledger changed")
			}
		})
	}
}
