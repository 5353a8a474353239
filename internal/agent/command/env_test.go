package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
)

func TestEnvironDoesNotChangeTheBase(t *testing.T) {
	t.Parallel()
	base := make([]string, 1, 10) // spare capacity an append could write into
	base[0] = "A=1"
	a, err := New("x", config.Agent{Run: []string{"true"}, Env: map[string]string{"A": "2"}}, Options{Environ: base})
	if err != nil {
		t.Fatal(err)
	}
	env := a.environ(agent.Request{})
	if base[0] != "A=1" || len(base[:cap(base)][1]) != 0 {
		t.Fatalf("environ changed its base: %q", base[:cap(base)])
	}
	if got := getenv(env, "A"); got != "2" {
		t.Fatalf("A = %q, want the configured 2", got)
	}
	if got := getenv(env, "OPTR_AGENT"); got != "x" {
		t.Fatalf("OPTR_AGENT = %q, want x", got)
	}
}

func TestEnvironCarriesTheDelegateVariables(t *testing.T) {
	t.Parallel()
	a, err := New("x", config.Agent{Run: []string{"true"}}, Options{Environ: []string{"OPTR_TOPIC=leaked", "OPTR_REPORT_PATH=leaked"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name              string
		req               agent.Request
		topic, reportPath string
	}{
		{"specialist", agent.Request{Stage: "specialist", Topic: "ledger formats", ReportPath: "/spec/reports/001_ledger-formats.md"}, "ledger formats", "/spec/reports/001_ledger-formats.md"},
		{"outside delegation both are empty, never inherited", agent.Request{}, "", ""},
	} {
		env := a.environ(tt.req)
		if got := getenv(env, "OPTR_TOPIC"); got != tt.topic {
			t.Errorf("%s: OPTR_TOPIC = %q, want %q", tt.name, got, tt.topic)
		}
		if got := getenv(env, "OPTR_REPORT_PATH"); got != tt.reportPath {
			t.Errorf("%s: OPTR_REPORT_PATH = %q, want %q", tt.name, got, tt.reportPath)
		}
	}
}

func TestEnvironStageVariables(t *testing.T) {
	t.Parallel()
	a, err := New("decide", config.Agent{Run: []string{"true"}}, Options{Environ: []string{
		"OPTR_FEEDBACK=/inherited", "OPTR_NEXT_STAGE=inherited", "PATH=/bin",
	}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  agent.Request
		want map[string]string // "" = set and empty; absent keys listed in gone
		gone []string
	}{
		{
			name: "a middle stage with feedback",
			req:  agent.Request{Stage: "decisions", NextStage: "execute", PreviousOutput: "/run/stages/01_discuss.out", Feedback: "/run/stages/feedback.md"},
			want: map[string]string{"OPTR_STAGE": "decisions", "OPTR_NEXT_STAGE": "execute", "OPTR_PREVIOUS_OUTPUT": "/run/stages/01_discuss.out", "OPTR_FEEDBACK": "/run/stages/feedback.md"},
		},
		{
			name: "the last stage of a first run",
			req:  agent.Request{Stage: "mind", PreviousOutput: "/run/stages/03_execute.out"},
			want: map[string]string{"OPTR_STAGE": "mind", "OPTR_NEXT_STAGE": "", "OPTR_PREVIOUS_OUTPUT": "/run/stages/03_execute.out"},
			gone: []string{"OPTR_FEEDBACK"},
		},
		{
			name: "outside a staged pipeline",
			want: map[string]string{"OPTR_STAGE": "", "OPTR_NEXT_STAGE": "", "OPTR_PREVIOUS_OUTPUT": ""},
			gone: []string{"OPTR_FEEDBACK"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := a.environ(tt.req)
			has := map[string]bool{}
			for _, kv := range env {
				k, _, _ := strings.Cut(kv, "=")
				has[k] = true
			}
			for k, want := range tt.want {
				if !has[k] || getenv(env, k) != want {
					t.Errorf("%s = %q (set %v), want %q", k, getenv(env, k), has[k], want)
				}
			}
			for _, k := range tt.gone {
				if has[k] {
					t.Errorf("%s is set to %q, want it absent", k, getenv(env, k))
				}
			}
		})
	}
}

// OPTR_OUTPUT_DIR is absolute: a coding agent works in another directory
// (its own repository), and a relative path would put its files into its
// change.
func TestOutputDirIsAbsolute(t *testing.T) {
	t.Parallel()
	a, err := New("x", config.Agent{Run: []string{"true"}}, Options{Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	got := getenv(a.environ(agent.Request{OutputDir: filepath.Join(".optr", "agent-files")}), "OPTR_OUTPUT_DIR")
	wd, _ := os.Getwd()
	if want := filepath.Join(wd, ".optr", "agent-files"); got != want {
		t.Errorf("OPTR_OUTPUT_DIR = %q, want %q", got, want)
	}
	if got := getenv(a.environ(agent.Request{}), "OPTR_OUTPUT_DIR"); got != "" {
		t.Errorf("without an output directory: %q", got)
	}
}
