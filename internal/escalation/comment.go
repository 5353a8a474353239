package escalation

import (
	"fmt"
	"strings"

	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/markdown"
)

// maxCommentError bounds each agent's error quoted in a comment, so that
// several agents fit well under GitHub's limit before Fit has to cut.
const maxCommentError = 4000

// Comment is the escalation comment for e (architecture §4.6): the hidden marker
// first, then the reason, the decision, what was tried, the agents' last
// errors (fenced: they are untrusted text) and the mention handles, cut
// to comment.MaxBody.
func Comment(e Escalation, mention []string) string {
	var b strings.Builder
	b.WriteString(comment.Marker(comment.KindEscalation, e.ID) + "\n")
	title := "optr escalation"
	switch e.Decision.Action {
	case Abort:
		title = "optr aborted the run"
	case EscalateCEO:
		title = "optr needs a decision"
	}
	fmt.Fprintf(&b, "### ⚠️ %s\n\n", title)
	fmt.Fprintf(&b, "**Reason:** %s\n", inline(e.Reason))
	what := string(e.Trigger)
	if e.Agent != "" {
		what += ", agent " + markdown.Code(e.Agent)
	}
	fmt.Fprintf(&b, "**Trigger:** %s\n", what)
	fmt.Fprintf(&b, "**Decision:** `%s`: %s\n", e.Decision.Action, inline(e.Decision.Reason))
	fmt.Fprintf(&b, "**Failed agents:** %d of at most %d (watcher.max-failures)\n", e.Situation.FailedAgents, maxFailuresOf(e.Situation))
	if len(e.Tried) > 0 {
		b.WriteString("\n**What was tried**\n\n")
		for _, t := range e.Tried {
			fmt.Fprintf(&b, "- %s\n", inline(t))
		}
	}
	if len(e.Actions) > 0 {
		b.WriteString("\n**What optr did**\n\n")
		for _, a := range e.Actions {
			fmt.Fprintf(&b, "- %s\n", inline(a))
		}
	}
	if len(e.LastErrors) > 0 {
		b.WriteString("\n**Last errors**\n")
		for _, le := range e.LastErrors {
			fmt.Fprintf(&b, "\n%s:\n\n%s\n", markdown.Code(le.Agent), markdown.Untrusted(markdown.Truncate(le.Error, maxCommentError)))
		}
	}
	if len(mention) > 0 {
		fmt.Fprintf(&b, "\ncc %s\n", strings.Join(mention, " "))
	}
	where := ""
	if e.InboxFile != "" {
		where = e.InboxFile
	}
	return comment.Fit(b.String(), where)
}

// inline renders untrusted text on one Markdown line (markdown.Inline).
func inline(s string) string { return markdown.Inline(s, 1000) }
