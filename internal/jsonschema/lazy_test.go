package jsonschema

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// metaschemasAtStart is whether the drafts' metaschemas were compiled
// before any test ran, that is, in init.
var metaschemasAtStart bool

func TestMain(m *testing.M) {
	metaschemasAtStart = Draft2020.sch != nil || Draft4.sch != nil
	os.Exit(m.Run())
}

// TestMetaschemasNotCompiledInInit: linking the package costs nothing at
// start-up (optr's change to upstream, draft.go loadDrafts).
func TestMetaschemasNotCompiledInInit(t *testing.T) {
	t.Parallel()
	if metaschemasAtStart {
		t.Error("the metaschemas were compiled in init; compile them on the first NewCompiler")
	}
}

// TestSchemasCheckedAgainstTheirMetaschema: with the metaschemas compiled
// lazily, every draft still rejects a schema its metaschema rejects and
// accepts one it accepts.
func TestSchemasCheckedAgainstTheirMetaschema(t *testing.T) {
	t.Parallel()
	drafts := map[string]string{
		"draft-04":      "http://json-schema.org/draft-04/schema#",
		"draft-06":      "http://json-schema.org/draft-06/schema#",
		"draft-07":      "http://json-schema.org/draft-07/schema#",
		"draft 2019-09": "https://json-schema.org/draft/2019-09/schema",
		"draft 2020-12": "https://json-schema.org/draft/2020-12/schema",
	}
	for name, url := range drafts {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			compile := func(body string) error {
				doc, err := UnmarshalJSON(strings.NewReader(fmt.Sprintf(`{"$schema": %q, %s}`, url, body)))
				if err != nil {
					t.Fatal(err)
				}
				c := NewCompiler()
				if err := c.AddResource("s.json", doc); err != nil {
					t.Fatal(err)
				}
				_, err = c.Compile("s.json")
				return err
			}
			if err := compile(`"type": "object", "minProperties": 1`); err != nil {
				t.Errorf("valid schema: %v", err)
			}
			err := compile(`"type": 1`)
			if err == nil || !strings.Contains(err.Error(), "is not valid against metaschema") {
				t.Errorf(`schema with "type": 1: err = %v, want a metaschema violation`, err)
			}
		})
	}
}
