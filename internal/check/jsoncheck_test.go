package check

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/config"
)

func TestJSONCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		output string
		want   Outcome
	}{
		{"object", `{"a": [1, 2, {"b": null}]}`, Outcome{Pass: true}},
		{"scalar", `42`, Outcome{Pass: true}},
		{"string", `"héllo"`, Outcome{Pass: true}},
		{"surrounding whitespace", " \n\t{\"a\":1}\r\n\n", Outcome{Pass: true}},
		{"empty", "", Outcome{Reason: "output is empty; expected one JSON value"}},
		{"only whitespace", " \n ", Outcome{Reason: "output is empty; expected one JSON value"}},
		{"bad token", `{"a": x}`, Outcome{Reason: "output is not valid JSON: invalid character 'x' looking for beginning of value (line 1, column 7, byte offset 6)"}},
		{"bad token on line 3", "{\n  \"a\": 1,\n  \"é\": tru\n}", Outcome{Reason: "output is not valid JSON: invalid character '\\n' in literal true (expecting 'e') (line 3, column 11, byte offset 23)"}},
		{"trailing comma", `[1, 2,]`, Outcome{Reason: "output is not valid JSON: invalid character ']' looking for beginning of value (line 1, column 7, byte offset 6)"}},
		{"truncated", `{"a": [1, 2`, Outcome{Reason: "output is not valid JSON: it ends before the value is complete (line 1, column 12, byte offset 11)"}},
		{"two values", `{"a":1} {"b":2}`, Outcome{Reason: `output holds more than one JSON value: unexpected "{" after the value (line 1, column 9, byte offset 8)`}},
		{"prose after", "{\"a\":1}\nDone!", Outcome{Reason: `output holds more than one JSON value: unexpected "D" after the value (line 2, column 1, byte offset 8)`}},
		{"fenced is not JSON", "```json\n{\"a\":1}\n```", Outcome{Reason: "output is not valid JSON: invalid character '`' looking for beginning of value (line 1, column 1, byte offset 0)"}},
		{"non-JSON whitespace", "\u00a0{}", Outcome{Reason: "output is not valid JSON: invalid character 'Â' looking for beginning of value (line 1, column 1, byte offset 0)"}},
	}
	ch := mustNew(t, "valid-json", config.Constraint{Check: "json"}, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, errText := run(t, ch, tt.output)
			if errText != "" {
				t.Fatalf("Check error: %s", errText)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check(%q) (-want +got):\n%s", tt.output, diff)
			}
		})
	}
}

// FuzzJSONCheck checks the json check against encoding/json's own validator:
// both accept exactly one JSON value with JSON whitespace around it.
func FuzzJSONCheck(f *testing.F) {
	for _, s := range []string{`{}`, ` [1,2] `, `{"a":1}{`, `"x`, "", " ", `1 2`, "\ufeff{}", `{"a":"\ud800"}`, "nul", `-0.0e+1`} {
		f.Add(s)
	}
	ch := jsonCheck{}
	f.Fuzz(func(t *testing.T, output string) {
		got, err := ch.Check(t.Context(), output)
		if err != nil {
			t.Fatalf("Check error: %v", err)
		}
		if want := json.Valid([]byte(output)); got.Pass != want {
			t.Fatalf("Check(%q).Pass = %v, json.Valid = %v (reason %q)", output, got.Pass, want, got.Reason)
		}
		if !got.Pass && got.Reason == "" {
			t.Fatalf("Check(%q) failed without a reason", output)
		}
	})
}
