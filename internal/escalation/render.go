package escalation

import (
	"fmt"
	"strings"
	"time"
)

// renderDecision is decision.md: the latest decision, whole.
func renderDecision(e *Escalation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Decision: %s\n\n", e.ID)
	fmt.Fprintf(&b, "**Decision:** %s\n", e.Decision.Action)
	fmt.Fprintf(&b, "**Why:** %s\n", oneLine(e.Decision.Reason))
	fmt.Fprintf(&b, "**Escalation:** %s\n", e.ID)
	fmt.Fprintf(&b, "**Trigger:** %s\n", e.Trigger)
	if e.Agent != "" {
		fmt.Fprintf(&b, "**Agent:** %s\n", e.Agent)
	}
	fmt.Fprintf(&b, "**Reason:** %s\n", oneLine(e.Reason))
	fmt.Fprintf(&b, "**Timestamp:** %s\n", e.Time.Format(time.RFC3339))
	if e.InboxFile != "" {
		fmt.Fprintf(&b, "**CEO inbox:** %s\n", e.InboxFile)
	}
	writeSituation(&b, e.Situation)
	writeList(&b, "Actions", e.Actions)
	writeList(&b, "What was tried", e.Tried)
	writeErrors(&b, e.LastErrors)
	return b.String()
}

// renderInbox is the ceo-inbox file: everything a person needs to decide.
func renderInbox(e *Escalation, coordDir string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Watcher escalation: %s\n\n", e.ID)
	fmt.Fprintf(&b, "**Decision:** %s\n", e.Decision.Action)
	fmt.Fprintf(&b, "**Why:** %s\n", oneLine(e.Decision.Reason))
	fmt.Fprintf(&b, "**Trigger:** %s\n", e.Trigger)
	if e.Agent != "" {
		fmt.Fprintf(&b, "**Agent:** %s\n", e.Agent)
	}
	fmt.Fprintf(&b, "**Reason:** %s\n", oneLine(e.Reason))
	fmt.Fprintf(&b, "**Time:** %s\n", e.Time.Format(time.RFC3339))
	fmt.Fprintf(&b, "**Coordination directory:** %s\n", coordDir)
	if e.Detail != "" {
		fmt.Fprintf(&b, "\n## What happened\n\n%s\n", strings.TrimSpace(e.Detail))
	}
	writeSituation(&b, e.Situation)
	writeList(&b, "What was tried", e.Tried)
	writeList(&b, "What the handler did", e.Actions)
	writeErrors(&b, e.LastErrors)
	b.WriteString("\n## What you can do\n\n")
	switch e.Decision.Action {
	case Abort:
		b.WriteString("- The run was stopped. Read the agents' last errors above, fix their cause (configuration, credentials, the task itself), then start the run again.\n")
	default:
		b.WriteString("- Settle the conflict or break the deadlock: update the task or the agents' instructions on the blackboard, then let the run go on or start it again.\n")
	}
	fmt.Fprintf(&b, "- The decision record is %s/%s; the full history is in %s/%s.\n", coordDir, FileDecision, coordDir, FileWatcherLog)
	return b.String()
}

func writeSituation(b *strings.Builder, s Situation) {
	yn := func(v bool) string {
		if v {
			return "yes"
		}
		return "no"
	}
	b.WriteString("\n## Situation\n\n")
	fmt.Fprintf(b, "- Failed agents: %d (watcher.max-failures: %d)\n", s.FailedAgents, maxFailuresOf(s))
	fmt.Fprintf(b, "- Conflict: %s; deadlock: %s\n", yn(s.Conflict), yn(s.Deadlock))
	fmt.Fprintf(b, "- Timeout: %s; stuck: %s; restarts exhausted: %s\n", yn(s.Timeout), yn(s.Stuck), yn(s.RestartsExhausted))
	fmt.Fprintf(b, "- Error: %s; partial outputs: %s\n", yn(s.Error), yn(s.PartialOutputs))
	if o := s.Outlook; o != nil {
		fmt.Fprintf(b, "- The run can still succeed: %s (%s)\n", yn(o.Open), oneLine(o.Why))
	}
}

func writeList(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n", title)
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", oneLine(it))
	}
}

func writeErrors(b *strings.Builder, errs []AgentError) {
	if len(errs) == 0 {
		return
	}
	b.WriteString("\n## Last errors\n\n")
	for _, e := range errs {
		fmt.Fprintf(b, "- %s: %s\n", e.Agent, oneLine(e.Error))
	}
}
