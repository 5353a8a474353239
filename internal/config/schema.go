package config

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is a JSON Schema (draft 2020-12) of the config file, for editors
// (yaml-language-server: $schema=…) and for tools that check a config
// without optr. Parse is the authority: it also checks what a schema cannot
// say, such as whether a named agent exists or a pattern compiles.
//
//go:embed schema.json
var Schema []byte

// CompileSchema compiles Schema, once; compiling also checks it against
// the draft 2020-12 meta-schema.
var CompileSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
	if err != nil {
		return nil, fmt.Errorf("schema.json is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		return nil, err
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		return nil, fmt.Errorf("compile schema.json: %w", err)
	}
	return s, nil
})

// ValidateSchema checks a YAML config against Schema the way an editor
// does: converted to JSON first. It says what a schema-aware editor would
// say, no more; Parse is the authority.
func ValidateSchema(data []byte) error {
	s, err := CompileSchema()
	if err != nil {
		return err
	}
	return validateAgainst(s, data)
}

func validateAgainst(s *jsonschema.Schema, data []byte) error {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return fmt.Errorf("convert to JSON: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		return fmt.Errorf("read converted JSON: %w", err)
	}
	return s.Validate(inst)
}
