package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
)

// keyHunter looks everywhere an agent can for the real provider key — its
// environment, every process's environment and command line, its files,
// optr's memory — and prints LEAK:<route> for each place it is found.
// It knows the key by two halves of a piece of it, joined only at run
// time, so that the script itself holds no copy to find. It prints
// PLACEHOLDER when its key variable holds the gateway's placeholder, then
// calls Anthropic's Messages API with whatever key it was given, through
// its base URL, and prints the answer.
const keyHunter = `cat >/dev/null
K="$HEAD1$HEAD2"
leak() { echo "LEAK:$1"; }
env | grep -q "$K" && leak env
for f in /proc/[0-9]*/environ; do grep -qa "$K" "$f" 2>/dev/null && { leak proc-environ; break; }; done
for f in /proc/[0-9]*/cmdline; do grep -qa "$K" "$f" 2>/dev/null && { leak proc-cmdline; break; }; done
for d in "$HOME" "$TMPDIR" "$OPTR_OUTPUT_DIR" .; do
  [ -n "$d" ] && grep -rqa "$K" "$d" 2>/dev/null && { leak files; break; }
done
for p in /proc/[0-9]*; do
  [ "$(cat $p/comm 2>/dev/null)" = optr ] || continue
  heap=$(grep '\[heap\]' $p/maps 2>/dev/null | head -1 | cut -d' ' -f1)
  [ -n "$heap" ] || continue
  start=$((0x${heap%-*})); end=$((0x${heap#*-}))
  dd if=$p/mem bs=4096 skip=$((start/4096)) count=$(((end-start)/4096)) 2>/dev/null | grep -qa "$K" && leak optr-memory
done
case "$ANTHROPIC_API_KEY" in optr-gateway-anthropic-*) echo PLACEHOLDER ;; esac
curl -sS "$ANTHROPIC_BASE_URL/v1/messages" -H "x-api-key: $ANTHROPIC_API_KEY" -H "anthropic-version: 2023-06-01" \
  -H "content-type: application/json" \
  -d '{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}'
echo
`

const gatewayConfig = `agents:
  hunter:
    provider: command
    run: [sh, %[1]s/hunter.sh]
    %[2]s
    timeout: 60s
sandbox: { mode: %[3]s, read: [%[1]s] }
detection: { on-finding: warn }
prices:
  claude-sonnet-4-5: { input: 3, output: 15 }
`

// TestGatewayKeepsTheKey: an agent that hunts for the real provider key
// through its environment, /proc, its files and optr's memory finds only
// the placeholder, under sandbox auto and strict, and its call through the
// model gateway is answered with the real key swapped in and metered
// exactly. The same agent given the key the old way (pass-env, the
// gateway off) finds it: the test can fail.
func TestGatewayKeepsTheKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, mode, wiring string
		leaks              bool
	}{
		{"auto", "auto", "gateway: [anthropic]", false},
		{"strict", "strict", "gateway: [anthropic]", false},
		{"gateway-off", "auto", "pass-env: [ANTHROPIC_API_KEY]", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := llmtest.NewAnthropic(t)
			u := agent.Usage{InputTokens: 1234, OutputTokens: 56}
			if !tc.leaks {
				fake.Script(llmtest.Reply{Text: "the answer", Usage: u})
			}
			dir := t.TempDir()
			tools, ws := filepath.Join(dir, "tools"), filepath.Join(dir, "ws")
			for _, d := range []string{tools, ws} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			_ = os.Chmod(dir, 0o755)
			secret := strings.TrimPrefix(fake.Key, "test-anthropic-")[:16]
			script := strings.NewReplacer("$HEAD1", secret[:8], "$HEAD2", secret[8:]).Replace(keyHunter)
			if err := os.WriteFile(filepath.Join(tools, "hunter.sh"), []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := fmt.Sprintf(gatewayConfig, tools, tc.wiring, tc.mode)
			if err := os.WriteFile(filepath.Join(ws, "optr.yml"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := optrIn(t, ws, map[string]string{"ANTHROPIC_API_KEY": fake.Key, "ANTHROPIC_BASE_URL": fake.URL},
				"run", "--config", "optr.yml", "--intent", "find the key", "--interactive", "never", "--json")
			leaks := leakRoutes(ws, nil)
			if tc.leaks {
				// The key is redacted wherever optr writes it; the hunter's
				// own report says where it was.
				if !slices.Contains(leaks, "env") {
					t.Errorf("with the gateway off the hunter found %v; want the key in its env (exit %d)\n%s\n%s", leaks, code, stdout, stderr)
				}
				return
			}
			if code != 0 || len(leaks) > 0 {
				t.Fatalf("exit %d, leaks %v\nstdout:\n%s\nstderr:\n%s", code, leaks, stdout, stderr)
			}
			files, _ := filepath.Glob(filepath.Join(ws, ".optr", "workflows", "*", "runs", "*", "agent-outputs", "hunter.json"))
			if len(files) != 1 {
				t.Fatalf("agent outputs %v", files)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			var res struct {
				Output   string       `json:"output"`
				Usage    agent.Usage  `json:"usage"`
				Requests []agent.Call `json:"requests"`
			}
			if err := json.Unmarshal(b, &res); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Output, "PLACEHOLDER") || !strings.Contains(res.Output, "the answer") {
				t.Errorf("the hunter's output %q: want its placeholder seen and the call answered", res.Output)
			}
			if res.Usage != u || len(res.Requests) != 1 || res.Requests[0].Usage != u {
				t.Errorf("usage %+v, requests %+v; want %+v, metered once", res.Usage, res.Requests, u)
			}
			for _, in := range fake.Requests() {
				if got := in.Header.Get("X-Api-Key"); got != fake.Key {
					t.Errorf("the provider got the key %q, want the real one", got)
				}
			}
			var out struct {
				Tokens  *int64   `json:"tokens"`
				CostUSD *float64 `json:"cost_usd"`
			}
			if err := json.Unmarshal([]byte(stdout), &out); err != nil || out.Tokens == nil || *out.Tokens != u.Total() || out.CostUSD == nil {
				t.Errorf("--json totals %s (%v); want %d tokens and a known cost", stdout, err, u.Total())
			}
		})
	}
}
