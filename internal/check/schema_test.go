package check

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/config"
)

const workspace = "testdata/workspace"

func TestJSONSchemaCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		output string
		want   Outcome
	}{
		{"valid with $ref to a sibling file", `{"name": "Ada", "address": {"city": "London", "zip": "12345"}}`, Outcome{Pass: true}},
		{"surrounding whitespace", "\n" + `{"name": "Ada", "address": {"city": "London"}}` + "\n", Outcome{Pass: true}},
		{"violation inside the referenced schema", `{"name": "Ada", "address": {"city": "London", "zip": "12"}}`,
			Outcome{Reason: `output does not match schema schemas/person.json: at '/address/zip': '12' does not match pattern '^[0-9]{5}$'`}},
		{"missing property in the referenced schema", `{"name": "Ada", "address": {}}`,
			Outcome{Reason: `output does not match schema schemas/person.json: at '/address': missing property 'city'`}},
		{"wrong type at the root", `[1, 2]`,
			Outcome{Reason: `output does not match schema schemas/person.json: at '': got array, want object`}},
		{"big integer keeps precision", `{"name": "Ada", "age": 12345678901234567890.5, "address": {"city": "x"}}`,
			Outcome{Reason: `output does not match schema schemas/person.json: at '/age': got number, want integer`}},
		{"not JSON", `{"name": `,
			Outcome{Reason: `output is not valid JSON: it ends before the value is complete (line 1, column 10, byte offset 9)`}},
		{"two values", `{} {}`,
			Outcome{Reason: `output holds more than one JSON value: unexpected "{" after the value (line 1, column 4, byte offset 3)`}},
	}
	ch := mustNew(t, "person", config.Constraint{Check: "json-schema", Schema: "schemas/person.json"}, Options{Dir: workspace})
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

// TestJSONSchemaUnusable: a schema that cannot be loaded or compiled is an
// error (the constraint goes unverified), never a pass or a fail, and never a
// read outside the workspace or from the network.
func TestJSONSchemaUnusable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		schema  string
		wantSub string
	}{
		{"missing file", "schemas/nope.json", "no such file"},
		{"invalid JSON", "schemas/broken.json", "schemas/broken.json"},
		{"$ref over http", "schemas/remote.json", "http://example.com/schema.json"},
		{"$ref out of the workspace", "schemas/escape.json", "path escapes from parent"},
		{"$ref to an absolute file", "schemas/absolute.json", "path escapes from parent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ch := mustNew(t, "s", config.Constraint{Check: "json-schema", Schema: tt.schema}, Options{Dir: workspace})
			for range 2 { // the failure is remembered, not retried per output
				o, errText := run(t, ch, `"x"`)
				if errText == "" {
					t.Fatalf("Check = %+v, want an error", o)
				}
				if !strings.Contains(errText, tt.wantSub) || !strings.Contains(errText, "fix the schema file or the schema: path") {
					t.Errorf("error %q does not contain %q and advice", errText, tt.wantSub)
				}
			}
		})
	}
}

func TestJSONSchemaCompiledOnceUnderConcurrency(t *testing.T) {
	t.Parallel()
	ch := mustNew(t, "person", config.Constraint{Check: "json-schema", Schema: "schemas/person.json"}, Options{Dir: workspace})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			out := `{"name": "n", "address": {"city": "c"}}`
			if i%2 == 1 {
				out = `{"name": ""}`
			}
			o, err := ch.Check(t.Context(), out)
			if err != nil || o.Pass != (i%2 == 0) {
				t.Errorf("Check #%d = %+v, %v", i, o, err)
			}
		})
	}
	wg.Wait()
}
