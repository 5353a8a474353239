package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/optr-dev/optr/internal/extract"
)

// maxVerdictDepth bounds how many wrappings (an {"output": …} envelope, a
// JSON string) parseVerdict takes off before it gives up.
const maxVerdictDepth = 4

// judgeAnswer is a judge's reply: {"pass": true|false, "reason": "…"}.
type judgeAnswer struct {
	Pass   bool
	Reason string
}

// UnmarshalJSON accepts an object only when "pass" is present and a boolean,
// so extract.Object skips objects that are not verdicts (a "pass" that is
// missing or "yes" is never read as false, or as true).
func (a *judgeAnswer) UnmarshalJSON(b []byte) error {
	var raw struct {
		Pass   *bool   `json:"pass"`
		Reason *string `json:"reason"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw.Pass == nil {
		return errors.New(`no "pass" member`)
	}
	a.Pass = *raw.Pass
	a.Reason = ""
	if raw.Reason != nil {
		a.Reason = *raw.Reason
	}
	return nil
}

// envelope is the {"output": …} object LLM agents are asked for; a judge
// model may put its verdict inside it, as an object or as a JSON string.
type envelope struct {
	Output json.RawMessage `json:"output"`
}

// UnmarshalJSON accepts an object only when it has an "output" member.
func (e *envelope) UnmarshalJSON(b []byte) error {
	var raw struct {
		Output json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if len(raw.Output) == 0 || string(raw.Output) == "null" {
		return errors.New(`no "output" member`)
	}
	e.Output = raw.Output
	return nil
}

// parseVerdict reads a judge's reply whichever way the model wrapped it: the
// first JSON object in text (bare, fenced or among prose) whose "pass" is a
// boolean; else the same inside an {"output": …} envelope (as an object or a
// string); else the same inside text that is itself one JSON string.
func parseVerdict(text string) (judgeAnswer, error) {
	if a, ok := findVerdict(text, maxVerdictDepth); ok {
		return a, nil
	}
	return judgeAnswer{}, fmt.Errorf(`no {"pass": true|false, "reason": "…"} object in the answer: %w`, extract.ErrNoObject)
}

func findVerdict(text string, depth int) (judgeAnswer, bool) {
	if depth == 0 {
		return judgeAnswer{}, false
	}
	var a judgeAnswer
	if extract.Object(text, &a) == nil {
		return a, true
	}
	var e envelope
	if extract.Object(text, &e) == nil {
		if a, ok := findVerdict(unquoted(string(e.Output)), depth-1); ok {
			return a, true
		}
	}
	if s := unquoted(text); s != text {
		return findVerdict(s, depth-1)
	}
	return judgeAnswer{}, false
}

// unquoted returns the string a JSON string literal holds, or text unchanged
// when it is not one.
func unquoted(text string) string {
	var s string
	if json.Unmarshal([]byte(strings.TrimSpace(text)), &s) != nil {
		return text
	}
	return s
}
