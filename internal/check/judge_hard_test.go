package check

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/status"
)

// TestHardJudgeFailsClosed: a hard judge whose verdict cannot be had makes
// the output inadmissible with the reason; a soft one leaves it unverified.
func TestHardJudgeFailsClosed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		resp agent.Response
		err  error
	}{
		{"prose only", agent.Response{Output: "It is polite enough."}, nil},
		{"empty", agent.Response{}, nil},
		{"agent failed", agent.Response{}, agent.Errorf(agent.Transient, "rate_limited", "slow down")},
		{"pass not a boolean", agent.Response{Output: `{"pass": "no", "reason": "rude"}`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := agenttest.New("judge", func(context.Context, agent.Request) (agent.Response, error) { return tt.resp, tt.err })
			for _, hard := range []bool{true, false} {
				ch := mustNew(t, "polite", config.Constraint{Check: "judge", Agent: "judge", Hard: hard}, judgeOpts(a))
				ev := Evaluate(t.Context(), []Constraint{{Name: "polite", Hard: hard, Checker: ch}}, "rude output")
				v := ev.Verdicts[0]
				if hard {
					if v.Status != status.Failed || ev.Admissible {
						t.Fatalf("hard judge: status %s, admissible %v; want failed, not admissible (reason %q)", v.Status, ev.Admissible, v.Reason)
					}
					if !strings.Contains(v.Reason, "failed closed") || !strings.Contains(v.Reason, "judge judge") {
						t.Errorf("hard judge reason %q does not say it failed closed and which judge", v.Reason)
					}
					continue
				}
				if v.Status != status.Unverified || !ev.Admissible {
					t.Errorf("soft judge: status %s, admissible %v; want unverified, admissible", v.Status, ev.Admissible)
				}
			}
		})
	}
}

// TestJudgeModelAnsweringAsAsked drives a real LLM agent against a fake
// provider whose model answers exactly as the judging prompt asks, bare,
// outside the {"output": …} envelope the agent's own prompt asks for. The
// verdict must be read: the rude output is inadmissible.
func TestJudgeModelAnsweringAsAsked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply string
	}{
		{"bare", `{"pass":false,"reason":"it insults the reader"}`},
		{"fenced", "```json\n{\"pass\": false, \"reason\": \"it insults the reader\"}\n```"},
		{"in the envelope", llmtest.Answer(`{"pass":false,"reason":"it insults the reader"}`, 10)},
		{"envelope object", `{"output":{"pass":false,"reason":"it insults the reader"},"ttv_estimate_ms":10}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewOpenAI(t)
			srv.Script(llmtest.Reply{Text: tt.reply})
			a, err := llm.New("gpt", config.Agent{Provider: "openai", Model: "gpt-test"}, llm.Options{Getenv: srv.Getenv, HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			ch := mustNew(t, "polite", config.Constraint{Check: "judge", Agent: "gpt", Hard: true}, judgeOpts(a))
			ev := Evaluate(t.Context(), []Constraint{{Name: "polite", Hard: true, Checker: ch}}, "You are an idiot.")
			want := Verdict{Constraint: "polite", Hard: true, Status: status.Failed, Reason: "judged by gpt: it insults the reader"}
			if diff := cmp.Diff(want, ev.Verdicts[0]); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if ev.Admissible {
				t.Error("the rude output is admissible")
			}
		})
	}
}
