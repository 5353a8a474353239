package pipeline

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/status"
)

// fakes are one fake per HTTP LLM provider, and the config that points
// three agents at them. (The copilot provider drives the Copilot CLI; its
// tests are in package llm.)
type fakes struct {
	openai, anthropic, azure *llmtest.Server
	cfg                      *config.Config
}

func newFakes(t *testing.T, extra string) *fakes {
	t.Helper()
	f := &fakes{
		openai: llmtest.NewOpenAI(t), anthropic: llmtest.NewAnthropic(t), azure: llmtest.NewAzure(t),
	}
	y := fmt.Sprintf(`agents:
  codex: { provider: openai, model: gpt-4.1, base-url: %q }
  claude: { provider: anthropic, model: claude-sonnet-4-5, base-url: %q }
  mscopilot: { provider: azure-openai, deployment: gpt-4o, base-url: %q }
%s`, f.openai.URL, f.anthropic.URL, f.azure.URL, extra)
	cfg, err := config.Parse("providers.yml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	f.cfg = cfg
	return f
}

func (f *fakes) getenv(k string) string {
	for _, s := range []*llmtest.Server{f.openai, f.anthropic, f.azure} {
		if v, ok := s.Env()[k]; ok && !strings.HasSuffix(k, "_URL") && !strings.HasSuffix(k, "ENDPOINT") {
			return v
		}
	}
	return ""
}

func (f *fakes) keys() []string {
	return []string{f.openai.Key, f.anthropic.Key, f.azure.Key}
}

func spec(t *testing.T, cfg *config.Config, runID string, dir string) Spec {
	t.Helper()
	return Spec{
		Config: cfg, Workflow: "providers", RunID: runID, Intent: "Summarise the change",
		Datalake: filepath.Join(dir, ".optr"), LedgerPath: filepath.Join(dir, ".optr", "ledger.jsonl"), Dir: dir,
	}
}

// A run over all three providers succeeds and no key appears in anything
// the run leaves: datalake files, ledger, logs.
func TestAllProvidersAndNoSecretLeaks(t *testing.T) {
	t.Parallel()
	f := newFakes(t, "")
	for _, s := range []*llmtest.Server{f.openai, f.anthropic, f.azure} {
		s.SetDefault(llmtest.Reply{Text: llmtest.Answer("# Summary\n\nIt is faster.", 800)})
	}
	dir := t.TempDir()
	var logs bytes.Buffer
	var mu sync.Mutex
	deps := Deps{
		Getenv: f.getenv, HTTPClient: f.azure.Client(), Stderr: &lockedWriter{w: &logs, mu: &mu},
		Logf: func(format string, args ...any) { mu.Lock(); fmt.Fprintf(&logs, format+"\n", args...); mu.Unlock() },
	}
	rep, err := (&Driver{Deps: deps}).Run(t.Context(), spec(t, f.cfg, "all-1", dir))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != status.Completed {
		t.Fatalf("status %s: %s", rep.Status, rep.Message)
	}
	for _, r := range rep.Results {
		if r.Status != status.Succeeded || r.Output == "" || r.Usage.Total() == 0 {
			t.Errorf("%s: %s %q tokens %d (%s)", r.Agent, r.Status, r.Output, r.Usage.Total(), r.Error)
		}
	}
	scanForKeys(t, dir, logs.String(), f.keys())
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func scanForKeys(t *testing.T, dir, logs string, keys []string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		files++
		for _, k := range keys {
			if bytes.Contains(data, []byte(k)) {
				t.Errorf("key found in %s", p)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.Contains(logs, k) {
			t.Errorf("key found in the logs")
		}
	}
	if files < 6 {
		t.Fatalf("scanned only %d files: the run left less than expected", files)
	}
}

// fault is one scripted attempt outcome.
type fault struct {
	name  string
	reply llmtest.Reply
	class string // "", transient, systematic, fatal
}

func faultsFor(provider string) []fault {
	fs := []fault{
		{"429", llmtest.Reply{Status: 429, Headers: map[string]string{"retry-after-ms": "5"}}, "transient"},
		{"500", llmtest.Reply{Status: 500}, "transient"},
		{"truncated", llmtest.Reply{Truncate: true}, "transient"},
		{"400", llmtest.Reply{Status: 400}, "fatal"},
	}
	if provider == "anthropic" {
		// Prose is a text-answering model's output; optr's form with
		// nothing in it is not.
		fs = append(fs, fault{"529", llmtest.Reply{Status: 529}, "transient"},
			fault{"empty output", llmtest.Reply{Text: `{"output": " "}`}, "systematic"})
	} else {
		fs = append(fs, fault{"not json", llmtest.Reply{Text: "Sure! Here is my answer, in prose."}, "systematic"})
	}
	return fs
}

// script draws one agent's attempts from the policy: each attempt fails
// with probability p; transient failures are retried until `attempts` of
// them, systematic ones escalate (no analyzer), fatal ones stop at once.
// It returns the replies and the outcome optr must reach.
func script(rng *rand.Rand, provider string, p float64, attempts int) ([]llmtest.Reply, string, []string) {
	var replies []llmtest.Reply
	var names []string
	transient := 0
	for {
		if rng.Float64() >= p {
			replies = append(replies, llmtest.Reply{Text: llmtest.Answer("# ok", 100)})
			return replies, "succeeded", append(names, "ok")
		}
		fs := faultsFor(provider)
		f := fs[rng.IntN(len(fs))]
		replies, names = append(replies, f.reply), append(names, f.name)
		switch f.class {
		case "transient":
			transient++
			if transient >= attempts {
				return replies, "escalated", names
			}
		default:
			return replies, "escalated", names
		}
	}
}

// The fault suite: 50 runs of 3 agents, 30% of attempts failing with a
// random fault. Every run must end completed or cleanly failed, every
// agent must make exactly the attempts the policy allows (the fakes fail
// the test on an unused or missing scripted reply), no result is written
// twice, and the ledger stays one valid chain.
func TestFaultSuite(t *testing.T) {
	t.Parallel()
	const runs, p, attempts = 50, 0.30, 3
	f := newFakes(t, "recovery: { attempts: 3, base-delay: 5ms, max-delay: 20ms }\nwatcher: { max-failures: 5 }\n")
	servers := map[string]*llmtest.Server{"codex": f.openai, "claude": f.anthropic, "mscopilot": f.azure}
	providers := map[string]string{"codex": "openai", "claude": "anthropic", "mscopilot": "azure"}
	rng := rand.New(rand.NewPCG(42, 7))
	dir := t.TempDir()
	deps := Deps{Getenv: f.getenv, HTTPClient: f.azure.Client()}
	var firstTry, afterRetry, escalated, completed, failed, requests, syntheses int
	hist := map[int]int{}
	for i := range runs {
		want := map[string]string{}
		for _, agent := range []string{"claude", "codex", "mscopilot"} { // fixed order: reproducible draws
			s := servers[agent]
			replies, outcome, _ := script(rng, providers[agent], p, attempts)
			s.Script(replies...)
			want[agent] = outcome
			requests += len(replies)
		}
		start := time.Now()
		rep, err := (&Driver{Deps: deps}).Run(t.Context(), spec(t, f.cfg, fmt.Sprintf("fault-%02d", i), dir))
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("run %d took %s", i, time.Since(start))
		}
		switch rep.Status {
		case status.Completed:
			completed++
		case status.Failed:
			failed++
		default:
			t.Fatalf("run %d ended %s: %s", i, rep.Status, rep.Message)
		}
		seen := map[string]bool{}
		for _, r := range rep.Results {
			if r.Agent == executor.SynthesisAgent {
				// The watcher synthesised partial outputs of a failed agent
				// (its synthesizer is codex, answered by the fake's default).
				syntheses++
				seen[r.Agent] = true
				continue
			}
			if seen[r.Agent] {
				t.Fatalf("run %d: two results for %s", i, r.Agent)
			}
			seen[r.Agent] = true
			if string(r.Status) != want[r.Agent] {
				t.Errorf("run %d: %s ended %s, the policy says %s (attempts %+v)", i, r.Agent, r.Status, want[r.Agent], r.Attempts)
			}
			n := len(r.Attempts)
			hist[n]++
			switch {
			case r.Status == status.Succeeded && n == 1:
				firstTry++
			case r.Status == status.Succeeded:
				afterRetry++
			default:
				escalated++
			}
			if n > attempts {
				t.Errorf("run %d: %s made %d attempts, more than the policy's %d", i, r.Agent, n, attempts)
			}
		}
		entries, _ := os.ReadDir(filepath.Join(rep.RunDir, "agent-outputs"))
		if len(entries) != len(rep.Results) || len(rep.Results) < 3 {
			t.Fatalf("run %d wrote %d agent outputs for %d results", i, len(entries), len(rep.Results))
		}
	}
	sum, err := ledger.VerifyFile(filepath.Join(dir, ".optr", "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fault suite: %d runs × 3 agents, %d requests; runs completed %d, failed %d; agents succeeded first try %d, after retries %d, escalated %d; attempts per agent %v; synthesis steps %d; ledger %d entries",
		runs, requests, completed, failed, firstTry, afterRetry, escalated, hist, syntheses, sum.Entries)
}
