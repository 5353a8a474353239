package config

import _ "embed"

// Schema is a JSON Schema (draft 2020-12) of the config file, for editors
// (yaml-language-server: $schema=…) and for tools that check a config
// without optr. Parse is the authority: it also checks what a schema cannot
// say, such as whether a named agent exists or a pattern compiles.
//
//go:embed schema.json
var Schema []byte
