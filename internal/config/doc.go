// Package config reads optr's configuration file (.github/optr.yml), fills
// defaults in one place, and validates it strictly: unknown keys, wrong types
// and dangling agent names are errors that name the file, line and key.
//
// The embedded default (Default) is used when no file exists; the offline demo
// lives in testdata/demo. schema.json, committed beside this file, describes the
// same keys for editors.
package config
