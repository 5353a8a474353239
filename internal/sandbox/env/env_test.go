package env

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A runner's environment as optr receives it: everything secret must stay
// out of Base, everything in the allowlist must come through unchanged.
func TestBaseKeepsOnlyTheAllowlist(t *testing.T) {
	t.Parallel()
	environ := []string{
		"GITHUB_TOKEN=ghs_secret", "GH_TOKEN=gho_secret", "COPILOT_GITHUB_TOKEN=ghu_secret",
		"INPUT_GITHUB-TOKEN=ghs_input", "ACTIONS_RUNTIME_TOKEN=rt", "ACTIONS_ID_TOKEN_REQUEST_TOKEN=oidc",
		"ACTIONS_ID_TOKEN_REQUEST_URL=https://x", "OPTR_LEDGER_KEY=PRIVATE+KEY", "OPENAI_API_KEY=sk-secret",
		"ANTHROPIC_API_KEY=sk-ant", "AWS_SECRET_ACCESS_KEY=aws", "HOME=/root", "TMPDIR=/tmp/optr",
		"OPTR_COPILOT_CLI=/bin/copilot", "GITHUB_OUTPUT=/tmp/out", "GITHUB_EVENT_PATH=/tmp/event.json",
		"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "LC_ALL=C", "LC_=odd", "TERM=xterm", "TZ=UTC", "CI=true",
		"GITHUB_REPOSITORY=o/r", "GITHUB_SERVER_URL=https://github.com", "GITHUB_RUN_ID=7", "GITHUB_SHA=abc",
		"GITHUB_REF=refs/heads/main", "GITHUB_EVENT_NAME=issues", "GITHUB_ACTIONS=true",
		"GITHUB_WORKSPACE=/github/workspace", "RUNNER_OS=Linux", "RUNNER_ARCH=X64",
		"RUNNER_TOOL_CACHE=/opt/hostedtoolcache", "LC_CTYPE=C.UTF-8", "junk",
	}
	want := []string{
		"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "TERM=xterm", "TZ=UTC", "CI=true",
		"GITHUB_REPOSITORY=o/r", "GITHUB_SERVER_URL=https://github.com", "GITHUB_RUN_ID=7", "GITHUB_SHA=abc",
		"GITHUB_REF=refs/heads/main", "GITHUB_EVENT_NAME=issues", "GITHUB_ACTIONS=true",
		"GITHUB_WORKSPACE=/github/workspace", "RUNNER_OS=Linux", "RUNNER_ARCH=X64",
		"RUNNER_TOOL_CACHE=/opt/hostedtoolcache", "LC_ALL=C", "LC_CTYPE=C.UTF-8",
	}
	got := Base(environ)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Base (-want +got):\n%s", diff)
	}
	for _, kv := range got {
		if strings.Contains(kv, "secret") || strings.Contains(kv, "KEY") {
			t.Errorf("a secret reached the base: %s", kv)
		}
	}
}

func TestBaseAlwaysHasAPath(t *testing.T) {
	t.Parallel()
	if v, _ := Lookup(Base(nil), "PATH"); v != DefaultPath {
		t.Fatalf("PATH = %q, want %q", v, DefaultPath)
	}
}

func TestCredential(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "github_token": true, "GH_TOKEN": true, "COPILOT_GITHUB_TOKEN": true,
		"GH_ENTERPRISE_TOKEN": true, "OPTR_LEDGER_KEY": true, "ACTIONS_RUNTIME_TOKEN": true,
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": true, "INPUT_GITHUB-TOKEN": true,
		"OPENAI_API_KEY": false, "ANTHROPIC_API_KEY": false, "GITHUB_SHA": false, "PATH": false,
	} {
		if got := Credential(name); got != want {
			t.Errorf("Credential(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestLookupTakesTheLastValue(t *testing.T) {
	t.Parallel()
	if v, ok := Lookup([]string{"A=1", "B=2", "A=3"}, "A"); !ok || v != "3" {
		t.Fatalf("Lookup = %q, %v", v, ok)
	}
	if _, ok := Lookup([]string{"A=1"}, "B"); ok {
		t.Fatal("Lookup found an unset variable")
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lists [][]string
		want  []string
	}{
		{"empty", nil, []string{}},
		{"no duplicates", [][]string{{"A=1", "B=2"}}, []string{"A=1", "B=2"}},
		{"last value at the first place", [][]string{{"A=1", "B=2", "A=3"}}, []string{"A=3", "B=2"}},
		{"a later list replaces", [][]string{{"A=1", "B=2"}, {"C=3", "A=4"}}, []string{"A=4", "B=2", "C=3"}},
		{"empty value and '=' in a value", [][]string{{"A=", "B=x=y"}, {"A=z"}}, []string{"A=z", "B=x=y"}},
		{"entry without '=' dropped", [][]string{{"junk", "A=1"}}, []string{"A=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Merge(tt.lists...)); diff != "" {
				t.Fatalf("Merge (-want +got):\n%s", diff)
			}
		})
	}
	base := make([]string, 1, 10) // spare capacity an append could write into
	base[0] = "A=1"
	if got := Merge(base, []string{"A=2", "B=3"}); base[0] != "A=1" || len(got) != 2 || got[0] != "A=2" {
		t.Errorf("Merge changed its input %q, or gave %q", base, got)
	}
}
