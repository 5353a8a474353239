package pipeline

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
)

// yamlText is user text that workflow-optr.yaml keeps so that it reads
// back byte for byte: as the YAML library writes a string where that
// round-trips and holds only characters YAML may hold literally (a
// multi-line intent stays a readable block), else as a double-quoted
// scalar whose escapes name every other character (NUL, ESC, CR, a
// trailing space, a BOM): a JSON string is one (YAML 1.2 §7.3.1). Text
// that is not UTF-8 cannot be a YAML string at all; the document keeps it
// in base64 beside (resolvedWorkflow).
type yamlText string

// MarshalYAML implements yaml.InterfaceMarshaler.
func (t yamlText) MarshalYAML() (any, error) {
	s := string(t)
	if literal(s) {
		if out, err := yaml.Marshal(map[string]string{"v": s}); err == nil {
			var back map[string]string
			if yaml.Unmarshal(out, &back) == nil && back["v"] == s {
				return s, nil
			}
		}
	}
	return quotedText(s), nil
}

// quotedText is a string written as a double-quoted YAML scalar.
type quotedText string

// MarshalYAML implements yaml.BytesMarshaler.
func (q quotedText) MarshalYAML() ([]byte, error) { return json.Marshal(string(q)) }

// literal reports whether s holds only characters YAML's printable set
// allows in a document (YAML 1.2 §5.1), no CR (a line break YAML folds
// into LF) and no BOM.
func literal(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool {
		switch {
		case r == '\t' || r == '\n':
			return false
		case r < 0x20 || r == 0x7f || r == utf8.RuneError || r == '\ufeff':
			return true
		case r >= 0x80 && r <= 0x9f:
			return r != 0x85
		}
		return false
	})
}
