package escalation

import "time"

// Escalation is one escalation and what was decided about it: what
// escalate.md, decision.md, the watcher-log entry, the ledger entry and the
// escalation comment are made of.
type Escalation struct {
	// ID names the escalation; it is safe in file names and comment markers.
	ID string `json:"id"`
	// Time is when it was decided.
	Time time.Time `json:"time"`
	// Agent is the agent concerned, empty when it concerns the whole run.
	Agent string `json:"agent,omitempty"`
	// Trigger is what raised it.
	Trigger Trigger `json:"trigger"`
	// Reason says what went wrong.
	Reason string `json:"reason"`
	// Detail is free text from tier 1 (untrusted in the standalone handler).
	Detail string `json:"detail,omitempty"`
	// Situation is what the decision was taken on.
	Situation Situation `json:"situation"`
	// Decision is the outcome of the decision table.
	Decision Decision `json:"decision"`
	// Tried lists what was tried before this escalation.
	Tried []string `json:"tried,omitempty"`
	// Actions lists what the handler did to carry the decision out.
	Actions []string `json:"actions,omitempty"`
	// LastErrors are the last error of each agent that failed so far.
	LastErrors []AgentError `json:"last_errors,omitempty"`
	// InboxFile is the ceo-inbox file written for it, if any.
	InboxFile string `json:"inbox_file,omitempty"`
}

// AgentError is an agent's last error.
type AgentError struct {
	Agent string `json:"agent"`
	Error string `json:"error"`
}

// NeedsHuman reports whether the decision is one a person must hear about
// at once: escalate_ceo, and abort (the run failed). Those get a ceo-inbox
// file and an escalation comment; the others are recoveries optr carries
// out by itself and shows in the ledger and the progress comment.
func (e Escalation) NeedsHuman() bool {
	return e.Decision.Action == EscalateCEO || e.Decision.Action == Abort
}

// LedgerFields are the members of the escalation's ledger entry (kind
// escalation); the ledger adds seq, time, kind, run, workflow, prev, hash.
func (e Escalation) LedgerFields() map[string]any {
	f := map[string]any{
		"escalation":      e.ID,
		"trigger":         string(e.Trigger),
		"reason":          e.Reason,
		"decision":        string(e.Decision.Action),
		"decision_reason": e.Decision.Reason,
		"failed_agents":   int64(e.Situation.FailedAgents),
		"max_failures":    int64(maxFailuresOf(e.Situation)),
	}
	if e.Agent != "" {
		f["agent"] = e.Agent
	}
	if len(e.Tried) > 0 {
		f["tried"] = strings2any(e.Tried)
	}
	if len(e.Actions) > 0 {
		f["actions"] = strings2any(e.Actions)
	}
	return f
}

func maxFailuresOf(s Situation) int {
	if s.MaxFailures <= 0 {
		return DefaultMaxFailures
	}
	return s.MaxFailures
}

func strings2any(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
