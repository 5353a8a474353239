package agent

import (
	"fmt"
	"strings"

	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/provider"
)

// Failure is one agent's final failure as a run records it (an executor
// result's Agent, Provider, Reason and Error).
type Failure struct {
	Agent    string
	Provider string
	Reason   string
	Message  string
}

// maxProblem bounds each agent's problem line in the comment.
const maxProblem = 300

// UnusableComment renders the one comment a run posts when nothing was
// usable: every agent of the run failed with Reason ReasonUnusable. It
// returns ok false, and no body, when failures is empty or any failure has
// another reason (then the run's ordinary report applies). The body says
// exactly what a maintainer can add to make a run work: the Copilot
// permission and organisation policy, or an OpenAI or Anthropic key (the
// providers of the embedded default config). It is a pure function of its
// arguments.
func UnusableComment(runID string, failures []Failure) (body string, ok bool) {
	if len(failures) == 0 {
		return "", false
	}
	for _, f := range failures {
		if f.Reason != ReasonUnusable {
			return "", false
		}
	}
	var b strings.Builder
	b.WriteString("### optr could not run " + markdown.Code(runID) + ": no agent is usable\n\n")
	for _, f := range failures {
		b.WriteString("- " + markdown.Code(f.Agent))
		if f.Provider != "" {
			b.WriteString(" (" + markdown.Code(f.Provider) + ")")
		}
		b.WriteString(": " + markdown.Inline(Problem(f.Message), maxProblem) + "\n")
	}
	b.WriteString(unusableFix())
	return b.String(), true
}

// Problem is an unusable agent's failure message without the class and
// reason prefix an *Error's message starts with ("fatal unusable: ",
// "fatal unusable (HTTP 403): "), which says nothing to a maintainer.
func Problem(msg string) string {
	return strings.TrimSpace(unusablePrefix.ReplaceAllString(strings.TrimSpace(msg), ""))
}

var unusablePrefix = lazyregexp.New(`^(` + string(Fatal) + ` ` + ReasonUnusable + `( \(HTTP \d+\))?: )+`)

// unusableFix says what to add, one item per provider of the embedded
// default config (provider.Provider.DefaultAgent): any one of them makes a
// run work.
func unusableFix() string {
	var b strings.Builder
	b.WriteString("\nAdd **one** of these, then run again:\n\n")
	for i, p := range provider.Defaults() {
		fmt.Fprintf(&b, "%d. **%s**", i+1, p.Title)
		if p.Setup != "" {
			b.WriteString(" " + p.Setup + "\n")
			continue
		}
		k := p.KeyEnv[0]
		fmt.Fprintf(&b, ": add a repository secret `%s` and pass it to the step as `env: %s: ${{ secrets.%s }}`.\n", k, k, k)
	}
	return b.String()
}
