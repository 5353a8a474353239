package llmtest

import "encoding/json"

// Answer returns the text of a well-formed optr answer:
// {"output": output, "ttv_estimate_ms": ttvMS}.
func Answer(output string, ttvMS int64) string {
	b, err := json.Marshal(struct {
		Output string `json:"output"`
		TTV    int64  `json:"ttv_estimate_ms"`
	}{output, ttvMS})
	if err != nil {
		panic(err) // a string and an integer always marshal
	}
	return string(b)
}
