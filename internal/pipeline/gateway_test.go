package pipeline

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// curlAgent is a command agent that calls Anthropic's Messages API three
// times, as the three kinds of clients do: straight to its base URL (the
// NO_PROXY a sandboxed process gets names loopback), through its proxy in
// absolute form (Claude Code, Codex CLI), and through a CONNECT tunnel
// (Gemini CLI). Each answer's text goes to stdout.
const curlAgent = `cat >/dev/null
call() {
  curl -sS --fail-with-body "$@" "$ANTHROPIC_BASE_URL/v1/messages" \
    -H "x-api-key: $ANTHROPIC_API_KEY" -H "anthropic-version: 2023-06-01" -H "content-type: application/json" \
    -d '{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}' || exit 1
  echo
}
call
call --noproxy '' --proxy "$HTTP_PROXY"
call --noproxy '' --proxy "$HTTP_PROXY" --proxytunnel
`

// gatewayRun runs one command agent, script, with gateway: [anthropic] in
// front of fake, under sandbox mode mode, with caps as the config's
// budget: section (may be empty).
func gatewayRun(t *testing.T, fake *llmtest.Server, script, mode, budget string) (*Outcome, Spec) {
	t.Helper()
	return runGatewayAgent(t, fake, script, "sandbox: {mode: "+mode+", read: [%[1]s]}\n", budget)
}

// gatewayRunNetwork is gatewayRun under sandbox auto, with host in
// sandbox.network when listed.
func gatewayRunNetwork(t *testing.T, fake *llmtest.Server, script string, listed bool, host string) (*Outcome, Spec) {
	t.Helper()
	network := "[defaults]"
	if listed {
		network = "[defaults, \"" + host + "\"]"
	}
	// A refused host is a detection finding: warned of, not a pause.
	return runGatewayAgent(t, fake, script, "sandbox: {mode: auto, read: [%[1]s], network: "+network+"}\ndetection: {on-finding: warn}\n", "")
}

// runGatewayAgent runs the agent with sandbox, a config section in
// which %[1]s is the directory of the agent's script.
func runGatewayAgent(t *testing.T, fake *llmtest.Server, script, sandbox, budget string) (*Outcome, Spec) {
	t.Helper()
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tools, "agent.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(dir, 0o755)
	yml := fmt.Sprintf("agents:\n  claude:\n    provider: command\n    run: [sh, %[1]s/agent.sh]\n    gateway: [anthropic]\n    timeout: 60s\n"+sandbox+"prices:\n  claude-sonnet-4-5: {input: 3, output: 15}\n", tools) + budget
	cfg, err := config.Parse("gateway.yml", []byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	sp := spec(t, cfg, "gateway-1", dir)
	env := fake.Env()
	deps := Deps{
		Environ: []string{"PATH=" + os.Getenv("PATH"), "ANTHROPIC_API_KEY=" + env["ANTHROPIC_API_KEY"]},
		Getenv:  func(k string) string { return env[k] },
	}
	rep, err := (&Driver{Deps: deps}).Run(t.Context(), sp)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return rep, sp
}

// TestGatewayMetersACommandAgent: a command agent that calls Anthropic
// through the model gateway — directly, through its proxy, through a
// tunnel — gets answers with a placeholder key; the provider sees only
// the real one; each call is in agent-outputs (requests, usage) and the
// ledger's tokens and cost for the agent are exactly what the provider
// reported, at the price table's rates.
func TestGatewayMetersACommandAgent(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{config.SandboxAuto, config.SandboxOff} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			fake := llmtest.NewAnthropic(t)
			u := []agent.Usage{{InputTokens: 1000, OutputTokens: 100}, {InputTokens: 2000, OutputTokens: 200}, {InputTokens: 3000, OutputTokens: 300}}
			calls := 3
			if mode == config.SandboxOff {
				calls = 1 // no proxy to go through
			}
			for i := range calls {
				fake.Script(llmtest.Reply{Text: fmt.Sprintf("answer %d", i+1), Usage: u[i]})
			}
			script := curlAgent
			if mode == config.SandboxOff {
				script = strings.SplitAfter(curlAgent, "\ncall\n")[0]
			}
			rep, sp := gatewayRun(t, fake, script, mode, "")
			r := rep.result("claude")
			if rep.Status != status.Completed || r == nil || r.Status != status.Succeeded {
				t.Fatalf("run %s: %+v", rep.Status, r)
			}
			var want agent.Usage
			for i := range calls {
				want = want.Add(u[i])
				if !strings.Contains(r.Output, fmt.Sprintf("answer %d", i+1)) {
					t.Errorf("the agent's output lacks answer %d: %q", i+1, r.Output)
				}
			}
			if len(r.Requests) != calls || r.Usage != want {
				t.Fatalf("requests %+v, usage %+v; want %d calls, %+v", r.Requests, r.Usage, calls, want)
			}
			for i, c := range r.Requests {
				if c.Attempt != 1 || c.Status != 200 || c.API != "messages" || c.Usage != u[i] || c.CostUSD == nil {
					t.Errorf("request %d = %+v", i, c)
				}
			}
			for _, in := range fake.Requests() {
				if in.Header.Get("X-Api-Key") != fake.Key {
					t.Errorf("the provider got the key %q", in.Header.Get("X-Api-Key"))
				}
			}
			usd := (float64(want.InputTokens)*3 + float64(want.OutputTokens)*15) / 1e6
			res := lastRun(t, sp.LedgerPath).Fields["results"].([]any)[0].(map[string]any)
			if number(t, res["tokens_in"]) != float64(want.InputTokens) || number(t, res["tokens_out"]) != float64(want.OutputTokens) ||
				math.Abs(number(t, res["cost_usd"])-usd) > 1e-12 || res["tokens_unknown"] != nil || res["cost_unknown"] != nil {
				t.Errorf("the ledger's result = %v; want %+v at $%g, all known", res, want, usd)
			}
			file, err := os.ReadFile(filepath.Join(rep.RunDir, "agent-outputs", "claude.json"))
			if err != nil {
				t.Fatal(err)
			}
			var got executor.Result
			if err := json.Unmarshal(file, &got); err != nil || len(got.Requests) != calls || got.Usage != want {
				t.Errorf("agent-outputs/claude.json: %v, %d requests, usage %+v", err, len(got.Requests), got.Usage)
			}
		})
	}
}

// TestGatewayBudgetStopsTheRun: a day's budget the run's first call would
// pass stops the agent at the gateway: the provider is never asked, the
// agent gets Anthropic's error with the figures, and its result says the
// budget stopped it.
func TestGatewayBudgetStopsTheRun(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewAnthropic(t)
	// The prompt alone, some 30 tokens at $3 a million, passes $0.00001.
	rep, _ := gatewayRun(t, fake, curlAgent, config.SandboxAuto, "budget: {max-usd-per-day: 0.00001}\nselection: {on-no-admissible: fail}\n")
	r := rep.result("claude")
	if r == nil || !r.BudgetExhausted || r.Status == status.Succeeded {
		t.Fatalf("result %+v", r)
	}
	if len(fake.Requests()) != 0 {
		t.Errorf("%d calls reached the provider", len(fake.Requests()))
	}
	if len(r.Requests) != 1 || r.Requests[0].Refused == "" || r.Requests[0].Status != 400 {
		t.Errorf("requests = %+v; want the one refused call", r.Requests)
	}
	for _, want := range []string{"budget.max-usd-per-day: $0.00 of $0.00001 spent today (UTC); this call would add about $0.0000"} {
		if !strings.Contains(r.Error, want) {
			t.Errorf("the result's error does not say %q: %s", want, r.Error)
		}
		if rep.Status != status.Failed || !strings.Contains(rep.Message, "the run's budget stopped its agents ("+want) {
			t.Errorf("run %s: %q; want it failed, saying %q", rep.Status, rep.Message, want)
		}
	}
}

// TestGatewayBypassIsUnknown: an agent that sends a call to the provider
// past the gateway (its own base URL) reaches nothing unless
// sandbox.network lists the host; where it does, the call went unseen,
// and the agent's use is recorded as partly unknown, never as what the
// gateway alone metered.
func TestGatewayBypassIsUnknown(t *testing.T) {
	t.Parallel()
	for _, listed := range []bool{false, true} {
		t.Run(fmt.Sprintf("listed=%v", listed), func(t *testing.T) {
			t.Parallel()
			fake := llmtest.NewAnthropic(t)
			fake.Script(llmtest.Reply{Text: "through the gateway", Usage: agent.Usage{InputTokens: 500, OutputTokens: 50}})
			upstream := strings.TrimPrefix(fake.URL, "http://")
			host := upstream[:strings.Index(upstream, "/")]
			script := strings.SplitAfter(curlAgent, "\ncall\n")[0] +
				"curl -sS --noproxy '' --proxy \"$HTTP_PROXY\" -o /dev/null -w 'past: %{http_code}\\n' http://" + upstream + "/v1/messages -H \"x-api-key: $ANTHROPIC_API_KEY\" -d '{}'\n"
			rep, sp := gatewayRunNetwork(t, fake, script, listed, host)
			r := rep.result("claude")
			if r == nil || r.Status != status.Succeeded {
				t.Fatalf("result %+v", r)
			}
			want := "past: 403" // the proxy refuses the host
			if listed {
				want = "past: 401" // the provider refuses the placeholder
			}
			if !strings.Contains(r.Output, want) {
				t.Errorf("output %q; want %q", r.Output, want)
			}
			res := lastRun(t, sp.LedgerPath).Fields["results"].([]any)[0].(map[string]any)
			if listed != (res["tokens_unknown"] == true) || listed != (r.Usage.Unknown == 1) || r.Usage.InputTokens != 500 {
				t.Errorf("usage %+v, ledger %v; unknown must be set exactly when the call went past the gateway", r.Usage, res)
			}
		})
	}
}
