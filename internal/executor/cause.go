package executor

import (
	"strings"

	"github.com/optr-dev/optr/internal/agent"
)

// Cause is why the agent gave no result, cause first, on one line: its
// last attempt's failure without the failure's class ("exit_status: sh
// exited with status 3", "auth (HTTP 401): …", the hosts the sandbox
// refused when that is the likely cause), then, for a command agent, the
// last line of its stderr, its own words. The score table's FAILED cell
// and the live table show it; Error keeps the whole story (the
// escalation, every attempt). Empty when the agent gave a result.
func (r *Result) Cause() string {
	msg := r.Error
	if n := len(r.Attempts); n > 0 && r.Attempts[n-1].Error != "" {
		a := r.Attempts[n-1]
		msg = strings.TrimPrefix(a.Error, string(a.Class)+" ")
	}
	head, tail, said := strings.Cut(msg, agent.StderrNote)
	head, _, _ = strings.Cut(strings.TrimSpace(head), "\n")
	if said {
		lines := strings.Split(strings.TrimSpace(tail), "\n")
		if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
			head += " — " + last
		}
	}
	return head
}
