package check

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/optr-dev/optr/internal/extract"
)

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

// parseVerdict reads a judge's reply: the first JSON object in text (bare,
// fenced or among prose) whose "pass" is a boolean.
func parseVerdict(text string) (judgeAnswer, error) {
	var a judgeAnswer
	if err := extract.Object(text, &a); err != nil {
		return judgeAnswer{}, fmt.Errorf(`no {"pass": true|false, "reason": "…"} object in the answer: %w`, err)
	}
	return a, nil
}
