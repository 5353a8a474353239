package llm

import (
	"testing"

	"github.com/optr-dev/optr/internal/provider"
)

// TestEveryLLMProviderHasACaller: each LLM provider of the registry is
// built by a constructor of its own or from its entry alone, which then
// speaks its first wire format and, when its agents may write api:, every
// one; nothing is registered for a provider that is not an LLM provider.
func TestEveryLLMProviderHasACaller(t *testing.T) {
	t.Parallel()
	for name := range callers {
		if !provider.IsLLM(name) {
			t.Errorf("a constructor is registered for %q, which is not an LLM provider", name)
		}
	}
	for _, p := range provider.All() {
		if !p.LLM() || callers[p.Name] != nil {
			continue
		}
		apis := p.APIs
		if !p.Uses("api") && len(apis) > 0 {
			apis = apis[:1]
		}
		if len(apis) == 0 {
			t.Errorf("provider %s has neither a constructor nor a wire format (APIs)", p.Name)
		}
		for _, a := range apis {
			if !speaks(a.Wire) {
				t.Errorf("provider %s is built from its entry, whose wire format %s optr's agents do not speak", p.Name, a.Wire)
			}
		}
	}
}
