package escalation

import (
	"fmt"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/lazyregexp"
)

// EscalationFile is escalate.md as tier 1 writes it:
//
//	# Escalation: <id>
//
//	**Reason:** <why>
//	**Trigger:** stuck|timeout|conflict|deadlock|error|…
//	**Agent:** <agent id>        (optional)
//
//	<free text>
type EscalationFile struct {
	// ID is the `# Escalation:` heading, as written.
	ID string
	// Reason is the `**Reason:**` line.
	Reason string
	// TriggerText is the `**Trigger:**` line as written; Trigger its reading.
	TriggerText string
	Trigger     Trigger
	// Agent is the `**Agent:**` line, when there is one.
	Agent string
	// Body is the free text: every line that is neither the heading nor a
	// field line.
	Body string
	// Fields holds every `**Key:** value` line, keys lower-cased.
	Fields map[string]string
}

var (
	headingRE = lazyregexp.New(`^#\s+Escalation\s*:\s*(.*?)\s*$`)
	// fieldRE matches "**Key:** value", "**Key**: value" and "- **Key:** value".
	fieldRE = lazyregexp.New(`^\s*(?:[-*+]\s+)?\*\*([A-Za-z][A-Za-z0-9 _-]{0,40}?)\s*(?::\*\*|\*\*\s*:)\s*(.*?)\s*$`)
)

// ParseEscalationFile reads escalate.md. It never fails: a file without a
// heading or fields gives empty values, and the handler then decides on
// what it has (architecture §4.7: missing is empty, never a crash).
func ParseEscalationFile(text string) EscalationFile {
	ef := EscalationFile{Fields: map[string]string{}}
	var body []string
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if m := headingRE.FindStringSubmatch(line); m != nil && ef.ID == "" {
			ef.ID = m[1]
			continue
		}
		if m := fieldRE.FindStringSubmatch(line); m != nil {
			key := strings.ToLower(strings.TrimSpace(m[1]))
			if _, seen := ef.Fields[key]; !seen {
				ef.Fields[key] = m[2]
			}
			continue
		}
		body = append(body, line)
	}
	ef.Reason = ef.Fields["reason"]
	ef.TriggerText = ef.Fields["trigger"]
	ef.Trigger = ParseTrigger(ef.TriggerText)
	ef.Agent = strings.Trim(strings.TrimSpace(ef.Fields["agent"]), "`")
	ef.Body = strings.TrimSpace(strings.Join(body, "\n"))
	return ef
}

// renderEscalationFile writes e as escalate.md, in the shape
// ParseEscalationFile reads.
func renderEscalationFile(e *Escalation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Escalation: %s\n\n", e.ID)
	fmt.Fprintf(&b, "**Reason:** %s\n", oneLine(e.Reason))
	fmt.Fprintf(&b, "**Trigger:** %s\n", e.Trigger)
	if e.Agent != "" {
		fmt.Fprintf(&b, "**Agent:** %s\n", e.Agent)
	}
	fmt.Fprintf(&b, "**Time:** %s\n", e.Time.Format(time.RFC3339))
	if e.Detail != "" {
		b.WriteString("\n" + strings.TrimSpace(e.Detail) + "\n")
	}
	return b.String()
}

// oneLine folds s onto one line, so it cannot break a `**Key:**` line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// safeID turns an escalation id into something fit for a file name and a
// comment marker: [A-Za-z0-9._-], at most 64 characters, not starting with
// a dot or a dash. It returns "" when nothing is left.
func safeID(id string) string {
	var b strings.Builder
	dash := false
	for _, r := range id {
		if b.Len() >= 64 {
			break
		}
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
			continue
		}
		b.WriteRune(r)
		dash = r == '-'
	}
	return strings.Trim(b.String(), ".-_")
}
