package llm

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/provider"
)

// TestEveryLLMProviderHasACaller: each LLM provider of the registry has a
// constructor registered here, and nothing else is registered.
func TestEveryLLMProviderHasACaller(t *testing.T) {
	t.Parallel()
	want := slices.Sorted(slices.Values(provider.LLMNames()))
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(callers))); diff != "" {
		t.Errorf("constructors registered in llm differ from the registry's LLM providers (-registry +llm):\n%s", diff)
	}
}
