package llm

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want answer
		ok   bool
	}{
		{"bare", `{"output": "hi", "ttv_estimate_ms": 1200}`, answer{"hi", 1200 * time.Millisecond}, true},
		{"fenced", "```json\n{\"output\": \"hi\", \"ttv_estimate_ms\": 5}\n```", answer{"hi", 5 * time.Millisecond}, true},
		{"prose around", "Sure.\n{\"output\": \"hi\"}\nHope that helps.", answer{Output: "hi"}, true},
		{"first object lacks output", `Example: {"x": 1}. Answer: {"output": "real", "ttv_estimate_ms": 2}`, answer{"real", 2 * time.Millisecond}, true},
		{"object output", `{"output": {"files": ["a.go"], "ok": true}}`, answer{Output: `{"files":["a.go"],"ok":true}`}, true},
		{"array output", `{"output": [1, 2, 3]}`, answer{Output: `[1,2,3]`}, true},
		{"number output", `{"output": 42}`, answer{Output: "42"}, true},
		{"ttv as string", `{"output": "x", "ttv_estimate_ms": "250"}`, answer{"x", 250 * time.Millisecond}, true},
		{"ttv as float", `{"output": "x", "ttv_estimate_ms": 1.5}`, answer{"x", 1500 * time.Microsecond}, true},
		{"ttv zero", `{"output": "x", "ttv_estimate_ms": 0}`, answer{Output: "x"}, true},
		{"ttv negative", `{"output": "x", "ttv_estimate_ms": -10}`, answer{Output: "x"}, true},
		{"ttv implausible", `{"output": "x", "ttv_estimate_ms": 1e18}`, answer{Output: "x"}, true},
		{"ttv not a number", `{"output": "x", "ttv_estimate_ms": "soon"}`, answer{Output: "x"}, true},
		{"object encoded as a string", `"{\"output\": \"inner\", \"ttv_estimate_ms\": 9}"`, answer{"inner", 9 * time.Millisecond}, true},
		{"braces inside the output", `{"output": "func f() { return }"}`, answer{Output: "func f() { return }"}, true},
		{"plain prose", "Here is a haiku about ledgers.", answer{}, false},
		{"empty", "", answer{}, false},
		{"no output field", `{"result": "x"}`, answer{}, false},
		{"null output", `{"output": null}`, answer{}, false},
		{"blank output", `{"output": " \n"}`, answer{}, false},
		{"truncated", `{"output": "a long answ`, answer{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseAnswer(tt.text)
			if (err == nil) != tt.ok {
				t.Fatalf("parseAnswer(%q) error = %v, want ok = %v", tt.text, err, tt.ok)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseAnswer(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		`{"output": "hi", "ttv_estimate_ms": 1200}`,
		"```json\n{\"output\": {\"a\": 1}}\n```",
		`"{\"output\": \"x\"}"`,
		`{"output": "x", "ttv_estimate_ms": "1e3"}`,
		`{{{"output"`,
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, err := parseAnswer(text)
		if err != nil {
			if got != (answer{}) {
				t.Errorf("parseAnswer failed but returned %+v", got)
			}
			return
		}
		if strings.TrimSpace(got.Output) == "" {
			t.Errorf("parseAnswer(%q) succeeded with a blank output", text)
		}
		if got.TTV < 0 || got.TTV > maxTTV {
			t.Errorf("parseAnswer(%q) TTV = %v, out of range", text, got.TTV)
		}
	})
}
