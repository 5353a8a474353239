package sandbox

import (
	"errors"
	"strings"
	"testing"
)

// A layer this machine cannot enforce (forced off here): auto runs and
// says so, strict refuses before any process starts, naming the layer
// and the reason.
func TestModesWithALayerMissing(t *testing.T) {
	for _, tc := range []struct {
		layer       string
		unavailable []string
		field       func(Layers) string
	}{
		{"fs", []string{"fs"}, func(l Layers) string { return l.FS }},
		// Without a namespace the seccomp layer holds the network; without
		// both, nothing that strict accepts does.
		{"net", []string{"net", "seccomp"}, func(l Layers) string {
			if l.NetComplete() {
				return l.Net
			}
			return "none (" + l.Net + ")"
		}},
	} {
		unavailable := map[string]string{}
		for _, l := range tc.unavailable {
			unavailable[l] = "forced off by the test"
		}
		auto := New(Settings{Mode: "auto", Unavailable: unavailable})
		if err := auto.Start(t.Context()); err != nil {
			t.Fatalf("%s: auto refused: %v", tc.layer, err)
		}
		if got := tc.field(auto.Layers()); !strings.HasPrefix(got, "none") {
			t.Errorf("%s: auto reports %q, want it not held", tc.layer, got)
		}
		if !strings.Contains(strings.Join(auto.Notes(), "\n"), "forced off by the test") {
			t.Errorf("%s: auto's notes do not say why: %q", tc.layer, auto.Notes())
		}
		strict := New(Settings{Mode: "strict", Unavailable: unavailable})
		err := strict.Start(t.Context())
		var se *StrictError
		if !errors.As(err, &se) || !strings.HasPrefix(se.Missing[0], tc.layer+": ") || !strings.Contains(err.Error(), "forced off by the test") {
			t.Fatalf("%s: strict = %v, want a refusal naming it and why", tc.layer, err)
		}
		if _, err := strict.Command(Process{Name: "a"}); err == nil {
			t.Errorf("%s: a refused sandbox still prepared a process", tc.layer)
		}
	}
}

func TestOffInheritsTheEnvironment(t *testing.T) {
	r := New(Settings{Mode: "off", Environ: []string{"GITHUB_TOKEN=t", "A=1"}})
	if err := r.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	l, err := r.Command(Process{Name: "a", Env: []string{"A=2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Finish()
	if got := strings.Join(l.Env(), " "); got != "GITHUB_TOKEN=t A=2" {
		t.Errorf("env = %q", got)
	}
	if r.Layers().Env != "inherited" || len(r.Notes()) != 1 {
		t.Errorf("off is not said: %v %q", r.Layers(), r.Notes())
	}
}

// The built environment holds the base, the process's own HOME, TMPDIR
// and proxy, the names it was passed, and no credential, even one named.
func TestBuiltEnvironment(t *testing.T) {
	r := New(Settings{Mode: "auto", Environ: []string{"PATH=/bin", "GITHUB_TOKEN=t", "ANTHROPIC_API_KEY=k", "OPENAI_API_KEY=o"}})
	if err := r.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	l, err := r.Command(Process{Name: "claude", PassEnv: []string{"ANTHROPIC_API_KEY", "GITHUB_TOKEN"}, Env: []string{"OPTR_AGENT=claude"}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Finish()
	got := strings.Join(l.Env(), "\n")
	for _, want := range []string{"PATH=/bin", "ANTHROPIC_API_KEY=k", "OPTR_AGENT=claude", "HTTPS_PROXY=http://127.0.0.1:", "HOME=", "TMPDIR="} {
		if !strings.Contains(got, want) {
			t.Errorf("env lacks %s:\n%s", want, got)
		}
	}
	for _, bad := range []string{"GITHUB_TOKEN", "OPENAI_API_KEY"} {
		if strings.Contains(got, bad) {
			t.Errorf("env holds %s:\n%s", bad, got)
		}
	}
}
