package action

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    Inputs
		wantErr string
	}{
		{
			name: "defaults",
			env:  map[string]string{},
			want: Inputs{Command: "auto", TriggerLabel: "optr", Datalake: ".optr", Commit: true, Plan: "optr-plan/plan.json", Results: "optr-tasks"},
		},
		{
			name: "runner spelling keeps hyphens, values trimmed",
			env: map[string]string{
				"INPUT_GITHUB-TOKEN":   " ghs_abc \n",
				"INPUT_CONFIG":         ".github/optr.yml",
				"INPUT_WORKFLOW":       "docs",
				"INPUT_INTENT":         "  do it  ",
				"INPUT_CONSTRAINTS":    "a, b",
				"INPUT_PIPELINE":       "fast",
				"INPUT_COMMAND":        "run",
				"INPUT_TRIGGER-LABEL":  "ai",
				"INPUT_DATALAKE":       "lake",
				"INPUT_LEDGER-BRANCH":  "optr-ledger",
				"INPUT_COMMIT":         "FALSE",
				"INPUT_CHANGES":        "pull-request",
				"INPUT_GITHUB_TOKEN":   "ignored: the hyphen form wins",
				"INPUT_TRIGGER_LABEL":  "ignored too",
				"INPUT_SOMETHING-ELSE": "x",
			},
			want: Inputs{
				GitHubToken: "ghs_abc", Config: ".github/optr.yml", Workflow: "docs", Intent: "do it",
				Constraints: "a, b", Pipeline: "fast", Command: "run", TriggerLabel: "ai",
				Datalake: "lake", LedgerBranch: "optr-ledger", Commit: false, Changes: "pull-request",
				Plan: "optr-plan/plan.json", Results: "optr-tasks",
			},
		},
		{
			name: "underscore fallback for hand-run containers",
			env: map[string]string{
				"INPUT_GITHUB_TOKEN":  "ghp_x",
				"INPUT_TRIGGER_LABEL": "go",
				"INPUT_LEDGER_BRANCH": "ledger",
				"INPUT_COMMIT":        "True",
			},
			want: Inputs{GitHubToken: "ghp_x", Command: "auto", TriggerLabel: "go", Datalake: ".optr", LedgerBranch: "ledger", Commit: true, Plan: "optr-plan/plan.json", Results: "optr-tasks"},
		},
		{
			name: "matrix task inputs",
			env: map[string]string{
				"INPUT_COMMAND": "task", "INPUT_TASK": "good", "INPUT_PLAN": "p/plan.json", "INPUT_RESULTS": "out",
			},
			want: Inputs{Command: "task", TriggerLabel: "optr", Datalake: ".optr", Commit: true, Task: "good", Plan: "p/plan.json", Results: "out"},
		},
		{
			name:    "command task needs a task",
			env:     map[string]string{"INPUT_COMMAND": "task"},
			wantErr: "the task input is empty",
		},
		{
			name:    "commit must be an Actions boolean",
			env:     map[string]string{"INPUT_COMMIT": "yes"},
			wantErr: `input commit: "yes" is not a boolean`,
		},
		{
			name:    "unknown changes mode",
			env:     map[string]string{"INPUT_CHANGES": "push"},
			wantErr: `input changes is "push": use one of none, pull-request, apply, or leave it empty`,
		},
		{
			name:    "unknown command",
			env:     map[string]string{"INPUT_COMMAND": "choose"},
			wantErr: `input command is "choose": use one of auto, run, abort, plan, task, gather`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := LoadInputs(mapEnv(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("LoadInputs error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LoadInputs mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseBool(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"true", "True", "TRUE"} {
		if v, err := parseBool(s); err != nil || !v {
			t.Errorf("parseBool(%q) = %v, %v", s, v, err)
		}
	}
	for _, s := range []string{"false", "False", "FALSE"} {
		if v, err := parseBool(s); err != nil || v {
			t.Errorf("parseBool(%q) = %v, %v", s, v, err)
		}
	}
	for _, s := range []string{"", "1", "yes", "tRUE", "on"} {
		if _, err := parseBool(s); err == nil {
			t.Errorf("parseBool(%q) accepted", s)
		}
	}
}
