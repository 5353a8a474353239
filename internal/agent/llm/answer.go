package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/extract"
)

// maxTTV bounds a plausible time-to-value estimate; larger ones are ignored.
const maxTTV = 365 * 24 * time.Hour

// errNoOutput says why an answer is unusable, in words a maintainer can act on.
var errNoOutput = errors.New(`the model's answer holds no JSON object with a non-empty "output"; the raw answer is kept in the agent's result`)

// answer is the model's answer as optr uses it.
type answer struct {
	Output string
	TTV    time.Duration
}

// parseAnswer reads {"output": …, "ttv_estimate_ms": …} from text,
// tolerating code fences, prose around the object, an answer encoded as a
// JSON string, and an output that is itself a JSON object or array (kept as
// compact JSON text).
func parseAnswer(text string) (answer, error) {
	var w wireAnswer
	if err := extract.Object(text, &w); err == nil {
		return answer(w), nil
	}
	// Some models return the whole object JSON-encoded as a string.
	var inner string
	if json.Unmarshal([]byte(strings.TrimSpace(text)), &inner) == nil && inner != text {
		if err := extract.Object(inner, &w); err == nil {
			return answer(w), nil
		}
	}
	return answer{}, errNoOutput
}

// wrapped reports whether text holds a JSON object with an "output" member
// (usable or not): the model meant to answer in optr's form, so an empty
// or unusable output there is a failure, not a plain-text answer.
func wrapped(text string) bool {
	var w outputMember
	return extract.Object(text, &w) == nil
}

// outputMember decodes only an object with an "output" member, so that
// extract.Object moves on to the next candidate otherwise.
type outputMember struct{}

// UnmarshalJSON implements json.Unmarshaler.
func (*outputMember) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if _, ok := m["output"]; !ok {
		return errNoOutput
	}
	return nil
}

// wireAnswer decodes only when the object has a usable output, so that
// extract.Object moves on to the next candidate object otherwise.
type wireAnswer answer

// UnmarshalJSON implements json.Unmarshaler.
func (w *wireAnswer) UnmarshalJSON(b []byte) error {
	var m struct {
		Output json.RawMessage `json:"output"`
		TTV    json.RawMessage `json:"ttv_estimate_ms"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	out, ok := outputText(m.Output)
	if !ok {
		return errNoOutput
	}
	w.Output = out
	w.TTV = ttvOf(m.TTV)
	return nil
}

// outputText returns the output as text: a string as is, an object or array
// as compact JSON, a number or boolean as written. Null, absent and blank
// outputs are not usable.
func outputText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var out string
	switch raw[0] {
	case '"':
		if json.Unmarshal(raw, &out) != nil {
			return "", false
		}
	case '{', '[':
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			return "", false
		}
		out = b.String()
	default:
		out = string(raw)
	}
	if strings.TrimSpace(out) == "" {
		return "", false
	}
	return out, true
}

// ttvOf reads ttv_estimate_ms written as a number or a numeric string; it
// returns zero when absent or implausible (not positive, or over maxTTV).
func ttvOf(raw json.RawMessage) time.Duration {
	s := strings.TrimSpace(string(raw))
	if unq, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(unq)
	}
	ms, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(ms) || ms <= 0 || ms > float64(maxTTV/time.Millisecond) {
		return 0
	}
	return time.Duration(ms * float64(time.Millisecond))
}
