package command

import (
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/config"
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
