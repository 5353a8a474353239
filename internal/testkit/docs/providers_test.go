package docs

import (
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/provider"
)

// TestProvidersNamedEverywhere: the places that list the providers by hand
// name every one the registry has (package provider), so that a provider
// added there cannot be missing from them: the table of providers in
// docs/configuration.md (its key, base-URL variable, default base URL and
// wire formats), the keys optr holds in docs/security-model.md and
// SECURITY.md, and the secrets the matrix workflow declares and passes to
// every optr step.
func TestProvidersNamedEverywhere(t *testing.T) {
	t.Parallel()
	t.Run("docs/configuration.md", func(t *testing.T) {
		t.Parallel()
		rows := providerRows(t, section(t, readRoot(t, "docs/configuration.md"), "Providers and endpoints"))
		for _, p := range provider.All() {
			if !p.LLM() {
				continue
			}
			row, ok := rows[p.Name]
			if !ok {
				t.Errorf("the table of providers has no row for %s", p.Name)
				continue
			}
			want := slices.Clone(p.KeyEnv)
			if p.BaseURLEnv != "" {
				want = append(want, p.BaseURLEnv)
			}
			if p.DefaultURL != "" {
				want = append(want, strings.TrimSuffix(p.DefaultURL, "/"))
			}
			want = append(want, p.WireNames()...)
			for _, w := range want {
				if !strings.Contains(row, "`"+w+"`") {
					t.Errorf("the row of %s does not name `%s`: %s", p.Name, w, row)
				}
			}
		}
	})
	for _, f := range []struct{ file, section string }{
		{"docs/security-model.md", "What optr holds"},
		{"SECURITY.md", "What optr does with tokens"},
	} {
		t.Run(f.file, func(t *testing.T) {
			t.Parallel()
			text := section(t, readRoot(t, f.file), f.section)
			for _, k := range provider.KeyVars() {
				if !strings.Contains(text, "`"+k+"`") {
					t.Errorf("%s, %q, does not name the key variable `%s`", f.file, f.section, k)
				}
			}
		})
	}
	t.Run("optr-matrix.yml", func(t *testing.T) {
		t.Parallel()
		want := matrixSecrets()
		var w struct {
			On struct {
				WorkflowCall struct {
					Secrets map[string]any `yaml:"secrets"`
				} `yaml:"workflow_call"`
			} `yaml:"on"`
			Jobs map[string]struct {
				Steps []struct {
					ID   string            `yaml:"id"`
					Uses string            `yaml:"uses"`
					Env  map[string]string `yaml:"env"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(readRoot(t, ".github/workflows/optr-matrix.yml")), &w); err != nil {
			t.Fatal(err)
		}
		declared := slices.Sorted(func(yield func(string) bool) {
			for k := range w.On.WorkflowCall.Secrets {
				if !yield(k) {
					return
				}
			}
		})
		if diff := cmp.Diff(want, declared); diff != "" {
			t.Errorf("the secrets optr-matrix.yml declares differ from the providers' (-registry +workflow):\n%s", diff)
		}
		steps := 0
		for job, j := range w.Jobs {
			for _, s := range j.Steps {
				if !strings.HasPrefix(s.Uses, "./.optr-action") {
					continue
				}
				steps++
				var passed []string
				for k, v := range s.Env {
					if v == "${{ secrets."+k+" }}" {
						passed = append(passed, k)
					}
				}
				slices.Sort(passed)
				if diff := cmp.Diff(want, passed); diff != "" {
					t.Errorf("job %s, step %s: the secrets it passes differ from the providers' (-registry +workflow):\n%s", job, s.ID, diff)
				}
			}
		}
		if steps == 0 {
			t.Error("no step of optr-matrix.yml runs optr (uses: ./.optr-action…); the test no longer sees them")
		}
	})
}

// matrixSecrets are the variables the matrix workflow hands its optr
// steps: each LLM provider's key variable, and the endpoint variable of a
// provider that has no endpoint of its own (an Azure resource), sorted.
func matrixSecrets() []string {
	var out []string
	for _, p := range provider.All() {
		if !p.LLM() {
			continue
		}
		if len(p.KeyEnv) > 0 {
			out = append(out, p.KeyEnv[0])
		}
		if p.DefaultURL == "" && p.BaseURLEnv != "" {
			out = append(out, p.BaseURLEnv)
		}
	}
	slices.Sort(out)
	return out
}

// providerRows maps each provider named in the first cell of a table row
// (`name`) to the row.
func providerRows(t *testing.T, text string) map[string]string {
	t.Helper()
	rows := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		rows[name] = line
	}
	if len(rows) == 0 {
		t.Fatal("no table of providers found")
	}
	return rows
}
