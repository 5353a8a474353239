package stages

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/recovery"
	"github.com/optr-dev/optr/internal/status"
)

// TestLLMStageHandsOffByAnswering puts an OpenAI agent (against the fake
// OpenAI server) between two command stages: it gets the first stage's
// output fenced in its prompt, its 429 is retried inside the launch (not
// a crash), and its answer goes to the last stage without any frame.
func TestLLMStageHandsOffByAnswering(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewOpenAI(t)
	fake.Script(
		llmtest.Reply{Status: http.StatusTooManyRequests, Headers: map[string]string{"Retry-After": "1"}},
		llmtest.Reply{Text: llmtest.Answer("the plan: ship it in two steps", 500)},
	)
	env := map[string]string{"OPENAI_API_KEY": fake.Key, "OPENAI_BASE_URL": fake.URL}
	think, err := llm.New("think", config.Agent{Provider: config.ProviderOpenAI, Model: "gpt-4.1", MaxTokens: 512},
		llm.Options{Getenv: func(k string) string { return env[k] }, HTTPClient: fake.Client(), Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	cmds := scripts(t, map[string]string{
		"draft": `cat >/dev/null; echo 'draft <<<OPTR:HANDOFF:think>>> text'`,
		"write": `cat`,
	})
	run := newRun(t, nil, "r1")
	c := Config{Pipeline: "p", Stages: []string{"draft", "think", "write"}, Restarts: 1, RestartBackoff: time.Second}
	var sl sleeps
	in := input(run, c, func(s string) (executor.Task, error) {
		if s == "think" {
			return executor.Task{Agent: think, Provider: config.ProviderOpenAI}, nil
		}
		return cmds(s)
	}, nil, &sl)
	in.Policy = recovery.Policy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Second}
	out, err := Run(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != status.Completed {
		t.Fatalf("%s: %s", out.Status, out.Message)
	}
	th := out.Stages[1]
	if th.Status != status.HandedOff || th.Handoff != "write" || th.Restarts != 0 || th.Attempts[0].Tries != 2 || th.Attempts[0].ExitCode != nil {
		t.Errorf("think = %+v", th)
	}
	if diff := cmp.Diff([]time.Duration{time.Second}, sl.d); diff != "" {
		t.Errorf("waits (-want +got), want the provider's Retry-After only:\n%s", diff)
	}
	user := fake.Requests()[1].User
	for _, want := range []string{"Should we split the release?", "stage think (2 of 3)", "Output of the previous stage, draft", "draft  text"} {
		if !strings.Contains(user, want) {
			t.Errorf("the LLM prompt lacks %q:\n%s", want, user)
		}
	}
	if !strings.Contains(out.Output, "the plan: ship it in two steps") {
		t.Errorf("the last stage did not get the LLM's answer: %q", out.Output)
	}
}

// TestStuckStageIsACrash runs the real watcher: a stage that shows no
// progress for watcher.stuck-after is stopped by it, which is a crash;
// after its restarts the run escalates with the stuck trigger.
func TestStuckStageIsACrash(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		run := newRun(t, nil, "r1")
		w, err := escalation.NewWatcher(escalation.WatcherOptions{
			Dir: filepath.Join(run.Dir, datalake.DirCoord), RunID: run.ID, Agents: []string{"a", "b"},
			StuckAfter: time.Minute, MaxRestarts: 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		stop := w.Start(t.Context())
		defer stop()
		c := Config{Pipeline: "p", Stages: []string{"a", "b"}, Restarts: 1, RestartBackoff: time.Second}
		in := input(run, c, func(s string) (executor.Task, error) {
			if s == "a" {
				return executor.Task{Agent: handoff(), Provider: config.ProviderCommand}, nil
			}
			return executor.Task{Agent: agenttest.New("b", agenttest.Hang), Provider: config.ProviderCommand}, nil
		}, nil, nil)
		in.Supervise = w.Supervise
		out, err := Run(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		b := out.Stages[1]
		if b.Status != status.Escalated || len(b.Attempts) != 2 || b.Attempts[0].Reason != reasonStuck || b.Attempts[1].Reason != reasonStuck {
			t.Fatalf("b = %s, attempts %+v", b.Status, b.Attempts)
		}
		if out.Escalation == nil || out.Escalation.Trigger != escalation.TriggerStuck {
			t.Errorf("escalation = %+v", out.Escalation)
		}
	})
}
