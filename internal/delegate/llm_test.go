package delegate

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/status"
)

// TestLLMCoordinatorAndSpecialist plans with an LLM's structured answer and
// writes an LLM specialist's answer as its report.
func TestLLMCoordinatorAndSpecialist(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewOpenAI(t)
	plan, _ := json.Marshal(map[string]any{"topics": []map[string]string{{"topic": "hash chains", "focus": "why"}}})
	report := strings.Replace(validReport, "```\n## Findings\n- a fenced line is no finding\n```\n", "", 1)
	srv.Script(llmtest.Reply{Text: llmtest.Answer(string(plan), 10)}, llmtest.Reply{Text: llmtest.Answer(report, 10)})
	h := newHarness(t)
	h.getenv = srv.Getenv
	h.cfg.Agents["planner"] = config.Agent{Provider: config.ProviderOpenAI, Model: "gpt-4.1", BaseURL: srv.URL, MaxTokens: 1000}
	h.cfg.Agents["writer"] = config.Agent{Provider: config.ProviderOpenAI, Model: "gpt-4.1", BaseURL: srv.URL, MaxTokens: 1000}
	o, err := Run(t.Context(), h.input(pipeline("planner", "writer")))
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != status.Completed {
		t.Fatalf("status %s: %s (%+v)", o.Status, o.Message, o.CoordinatorFailure)
	}
	if got := readFile(t, filepath.Join(o.SpecDir, "reports", "001_hash-chains.md")); got != report {
		t.Errorf("optr wrote the report as:\n%s\nwant the answer:\n%s", got, report)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !strings.Contains(reqs[0].User, `{"topics":[`) || !strings.Contains(reqs[1].User, "Topic: hash chains") {
		t.Errorf("the briefs did not reach the model:\n%s\n---\n%s", reqs[0].User, reqs[1].User)
	}
}
