package command

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/sandbox/proxy"
)

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		cfg         config.Agent
		wantTimeout time.Duration
		wantErr     string
	}{
		{"no run", config.Agent{Provider: "command"}, 0, "agents.a.run is empty"},
		{"empty program", config.Agent{Run: []string{""}}, 0, "agents.a.run is empty"},
		{"other provider", config.Agent{Provider: "openai", Run: []string{"x"}}, 0, `provider is "openai"`},
		{"bad env name", config.Agent{Run: []string{"x"}, Env: map[string]string{"A=B": "1"}}, 0, "agents.a.env"},
		{"NUL in env value", config.Agent{Run: []string{"x"}, Env: map[string]string{"A": "1\x00"}}, 0, "agents.a.env"},
		{"no timeout", config.Agent{Run: []string{"x"}}, 0, ""},
		{"timeout", config.Agent{Run: []string{"x"}, Timeout: config.Duration(time.Minute)}, time.Minute, ""},
		{"attempt timeout wins", config.Agent{Run: []string{"x"}, Timeout: config.Duration(time.Minute), AttemptTimeout: config.Duration(time.Second)}, time.Second, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := New("a", tt.cfg, Options{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New error = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Name() != "a" || a.timeout != tt.wantTimeout {
				t.Fatalf("Name %q timeout %v, want a %v", a.Name(), a.timeout, tt.wantTimeout)
			}
			if a.opts.Logger == nil || a.opts.MaxOutput != DefaultMaxOutput || a.opts.MaxStderr != DefaultMaxStderr || a.opts.KillGrace != DefaultKillGrace {
				t.Fatalf("defaults not filled in: %+v", a.opts)
			}
		})
	}
}

func TestNewCopiesConfig(t *testing.T) {
	t.Parallel()
	cfg := config.Agent{Run: []string{"x", "y"}, Env: map[string]string{"A": "1"}}
	a, err := New("a", cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Run[1], cfg.Env["A"] = "changed", "changed"
	if a.argv[1] != "y" || a.env["A"] != "1" {
		t.Fatalf("the agent shares its config's slices or maps: %q %q", a.argv, a.env)
	}
}

func TestReasonFromCode(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"":                      "",
		"E_QUOTA":               "e_quota",
		"rate-limited":          "rate_limited",
		"  Bad Input  ":         "bad_input",
		"--":                    "",
		"ünïcode":               "n_code",
		strings.Repeat("x", 99): strings.Repeat("x", 64),
	}
	for code, want := range tests {
		if got := reasonFromCode(code); got != want {
			t.Errorf("reasonFromCode(%q) = %q, want %q", code, got, want)
		}
	}
}

func TestStderrNote(t *testing.T) {
	t.Parallel()
	if got := stderrNote(" \n"); got != "; stderr was empty" {
		t.Fatalf("empty stderr: %q", got)
	}
	long := strings.Repeat("é", maxNote) + "END\n"
	got := stderrNote(long)
	if !strings.HasPrefix(got, "; the end of stderr:\n…") || !strings.HasSuffix(got, "END") || strings.Contains(got, "\uFFFD") {
		t.Fatalf("long stderr note: %q…%q", got[:40], got[len(got)-10:])
	}
	if len(got) > maxNote+64 {
		t.Fatalf("note has %d bytes, want about %d", len(got), maxNote)
	}
}

// A preset's agent runs the preset's command line with the model flag
// added, and its own env over the preset's; run replaces the command
// line; an unknown preset is refused naming the known ones.
func TestNewWithPreset(t *testing.T) {
	t.Parallel()
	a, err := New("claude", config.Agent{Preset: "claude-code", Model: "m", Env: map[string]string{"DISABLE_AUTOUPDATER": "0"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"claude", "-p", "--permission-mode", "acceptEdits", "--output-format", "stream-json", "--verbose", "--model", "m"}
	if !slices.Equal(a.argv, want) || a.env["DISABLE_AUTOUPDATER"] != "0" || a.env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] != "1" || a.preset == nil {
		t.Errorf("argv %q env %v", a.argv, a.env)
	}
	a, err = New("codex", config.Agent{Preset: "codex", Run: []string{"/opt/codex", "exec", "--json"}}, Options{})
	if err != nil || !slices.Equal(a.argv, []string{"/opt/codex", "exec", "--json"}) {
		t.Errorf("run over the preset: %q %v", a.argv, err)
	}
	if _, err := New("x", config.Agent{Preset: "aider"}, Options{}); err == nil || !strings.Contains(err.Error(), "claude-code, codex, gemini-cli, copilot-cli") {
		t.Errorf("unknown preset: %v", err)
	}
}

// A failed attempt's message names the hosts the sandbox refused it
// first, as the likely cause; class and reason stay the failure's.
func TestRefusedFirst(t *testing.T) {
	t.Parallel()
	fail := agent.Errorf(agent.Systematic, "exit_status", "claude exited with status 1; stderr was empty")
	net := []proxy.Host{
		{Host: "api.example.com", Port: 443, Allowed: true, Requests: 2},
		{Host: "127.0.0.1", Port: 8080, Reason: "IP address not in sandbox.network", Requests: 5},
	}
	got := refusedFirst(fail, net)
	var ae *agent.Error
	if !errors.As(got, &ae) || ae.Class != agent.Systematic || ae.Reason != "exit_status" ||
		!strings.HasPrefix(ae.Err.Error(), "the sandbox refused its connections to 127.0.0.1:8080 (IP address not in sandbox.network), the likely cause") ||
		!strings.HasSuffix(ae.Err.Error(), "claude exited with status 1; stderr was empty") {
		t.Errorf("refusedFirst = %v", got)
	}
	if got := refusedFirst(fail, net[:1]); got != error(fail) {
		t.Errorf("nothing refused: %v, want the failure as it is", got)
	}
	if got := refusedFirst(nil, net); got != nil {
		t.Errorf("a success with a refusal: %v, want nil", got)
	}
}
