package escalation

import "strings"

// Trigger is what raised an escalation: the `**Trigger:**` of escalate.md.
type Trigger string

// The triggers the decision table knows. Any other word is kept as written
// and decides nothing by itself (rule 6: synthesize).
const (
	TriggerStuck    Trigger = "stuck"
	TriggerTimeout  Trigger = "timeout"
	TriggerConflict Trigger = "conflict"
	TriggerDeadlock Trigger = "deadlock"
	TriggerError    Trigger = "error"
)

// triggerWords maps the spellings found in the wild to a Trigger.
var triggerWords = map[string]Trigger{
	"stuck": TriggerStuck, "stalled": TriggerStuck, "stall": TriggerStuck, "hung": TriggerStuck,
	"hang": TriggerStuck, "no-progress": TriggerStuck, "no_progress": TriggerStuck, "idle": TriggerStuck,
	"timeout": TriggerTimeout, "timed-out": TriggerTimeout, "timed_out": TriggerTimeout,
	"time-out": TriggerTimeout, "timedout": TriggerTimeout, "deadline": TriggerTimeout,
	"conflict": TriggerConflict, "conflicts": TriggerConflict, "conflicting": TriggerConflict,
	"deadlock": TriggerDeadlock, "deadlocked": TriggerDeadlock,
	"error": TriggerError, "errors": TriggerError, "failure": TriggerError, "failed": TriggerError,
	"fail": TriggerError, "crash": TriggerError, "crashed": TriggerError, "exception": TriggerError,
}

// ParseTrigger reads a trigger word: case, surrounding punctuation and
// Markdown emphasis are ignored, and "timed out" is read as timeout. Only
// the first word counts ("stuck (60s)" is stuck). An unknown word comes
// back lower-cased; empty text gives "".
func ParseTrigger(s string) Trigger {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.Trim(s, "`*_[]()\"'.,;:!")
	if strings.HasPrefix(s, "timed out") || strings.HasPrefix(s, "time out") {
		return TriggerTimeout
	}
	if strings.HasPrefix(s, "no progress") {
		return TriggerStuck
	}
	word, _, _ := strings.Cut(s, " ")
	word = strings.Trim(word, "`*_[]()\"'.,;:!")
	if t, ok := triggerWords[word]; ok {
		return t
	}
	return Trigger(word)
}

// Known reports whether t is one of the triggers the decision table knows.
func (t Trigger) Known() bool {
	switch t {
	case TriggerStuck, TriggerTimeout, TriggerConflict, TriggerDeadlock, TriggerError:
		return true
	}
	return false
}
