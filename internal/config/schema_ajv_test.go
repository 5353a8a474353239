package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/testkit/ajvtest"
)

// schema.json passes Ajv's strict compile, as SchemaStore requires of the
// schemas it lists (issue 22 item 18: strictRequired, union types and a
// one-item prefixItems failed it), and its $id names a release, not the
// moving main branch.
func TestSchemaAjvStrict(t *testing.T) {
	t.Parallel()
	var doc struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(Schema, &doc); err != nil {
		t.Fatal(err)
	}
	const prefix = "https://raw.githubusercontent.com/optr-dev/optr/"
	ref, ok := strings.CutPrefix(doc.ID, prefix)
	if !ok || !strings.HasPrefix(ref, "v") || strings.HasPrefix(ref, "main/") {
		t.Errorf("$id %q is not %s<release tag>/…", doc.ID, prefix)
	}
	ajvtest.CompileStrict(t, Schema)
}
