// Package ajvtest checks JSON Schemas with Ajv, the validator SchemaStore
// and most editors use, in its strict mode: a test kit. Ajv and
// ajv-formats are installed from npm on first use into the user cache;
// the test is skipped, saying why, when npm cannot install them.
package ajvtest
