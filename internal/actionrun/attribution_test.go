package actionrun

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/pipeline"
)

// π*'s model, when the run knows it, is in the trailer and the body.
func TestAttributionNamesTheModel(t *testing.T) {
	t.Parallel()
	rep := &pipeline.Outcome{Spec: pipeline.Spec{RunID: "9-1"}, Selected: "codex",
		Results: []*executor.Result{{Agent: "claude", Model: "claude-sonnet-4-5"}, {Agent: "codex", Model: "gpt-5-codex"}}}
	if got := attribution(rep).Trailers(); got != "Assisted-by: codex:gpt-5-codex\nOptr-Run: 9-1" {
		t.Errorf("trailers %q", got)
	}
	if got := writtenBy(rep); !strings.Contains(got, "agent `codex` with model `gpt-5-codex`") {
		t.Errorf("body says %q", got)
	}
}
