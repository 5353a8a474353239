// Package config reads optr's configuration file (.github/optr.yml), fills
// defaults in one place, and validates it strictly.
//
// Load and Parse report every problem, not only the first: unknown keys,
// values of the wrong type, bad values and references to agents or
// constraints that do not exist are *Error values that name the file, line
// and dotted key (agents.good.provider), joined with errors.Join. The CLI
// tells them from I/O errors with errors.As and exits with status 2.
//
// What each check kind and each provider accepts comes from a registry:
// the check kinds' in checks.go (their keys and validation; package check
// builds them), the providers' in package provider (their keys, key
// variables and default agents). Adding either is shown in CONTRIBUTING.md.
//
// Default is the embedded configuration used when no file exists. Schema
// is the same contract as a JSON Schema for editors; the tests keep the two
// in step, reading the registries.
package config
