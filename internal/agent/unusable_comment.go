package agent

import (
	"strings"

	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/markdown"
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
// permission and organisation policy, or an OpenAI or Anthropic key. It is
// a pure function of its arguments.
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
	b.WriteString(unusableFix)
	return b.String(), true
}

// Problem is an unusable agent's failure message without the class and
// reason prefix an *Error's message starts with ("fatal unusable: ",
// "fatal unusable (HTTP 403): "), which says nothing to a maintainer.
func Problem(msg string) string {
	return strings.TrimSpace(unusablePrefix.ReplaceAllString(strings.TrimSpace(msg), ""))
}

var unusablePrefix = lazyregexp.New(`^(` + string(Fatal) + ` ` + ReasonUnusable + `( \(HTTP \d+\))?: )+`)

// unusableFix says what to add; any one of the three makes a run work.
const unusableFix = `
Add **one** of these, then run again:

1. **GitHub Copilot** (no secret needed): give the workflow job the permission

   ` + "```yaml" + `
   permissions:
     copilot-requests: write
   ` + "```" + `

   and, for a repository owned by an organisation, have an organisation owner enable the policy **"Allow use of Copilot CLI billed to the organization"** (organisation settings → Copilot → Policies). The Copilot CLI comes with the optr image; outside it, install ` + "`@github/copilot`" + ` from npm or set ` + "`OPTR_COPILOT_CLI`" + ` to its path.
2. **OpenAI**: add a repository secret ` + "`OPENAI_API_KEY`" + ` and pass it to the step as ` + "`env: OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}`" + `.
3. **Anthropic**: add a repository secret ` + "`ANTHROPIC_API_KEY`" + ` and pass it to the step as ` + "`env: ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}`" + `.
`
