package progress

import (
	"strings"

	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/status"
)

// Summary renders the job summary of a run: a heading, the title, the
// score table, a Mermaid diagram of the run (intent → agents → checks → π*
// → ledger), the ledger hash and the commit. It is meant for
// GITHUB_STEP_SUMMARY, which the action keeps under 1 MiB.
func Summary(v View) string {
	var b strings.Builder
	b.WriteString(heading("##", v) + "\n\n")
	if v.Title != "" {
		b.WriteString("**" + markdown.Inline(v.Title, 200) + "**\n\n")
	}
	b.WriteString(subline(v) + "\n\n")
	if v.Message != "" {
		b.WriteString(message(v) + "\n\n")
	}
	if v.CheckpointID != "" {
		b.WriteString("Checkpoint " + markdown.Code(v.CheckpointID) + " waits for an answer on the issue: `/optr choose N [note]`.\n\n")
	}
	if v.Details != "" {
		b.WriteString(v.Details + "\n\n")
	}
	if v.Sandbox != "" {
		b.WriteString(markdown.Inline(v.Sandbox, 200) + "\n")
		for _, n := range v.SandboxNotes {
			b.WriteString("- " + markdown.Inline(n, 600) + "\n")
		}
		b.WriteString("\n")
	}
	if t := Table(v); t != "" {
		b.WriteString("### Selection\n\n" + t + "\n")
		switch {
		case v.Selected != "":
			b.WriteString("π\\* is **" + markdown.Inline(v.Selected, 64) + "**")
			if v.ResultPath != "" {
				b.WriteString("; its output is in " + markdown.Code(v.ResultPath))
			}
			b.WriteString(".\n\n")
		case v.Status != status.Running:
			b.WriteString("No result was selected.\n\n")
		}
	}
	if d := Diagram(v); d != "" {
		b.WriteString("### Run\n\n```mermaid\n" + d + "```\n")
	}
	b.WriteString(footer(v))
	return b.String()
}
