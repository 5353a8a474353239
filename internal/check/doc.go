// Package check turns named constraints into real checks of an agent's output:
// contains, regex, not-regex, max-length, json, json-schema, command and judge
// (an LLM agent that answers pass or fail with a reason).
//
// A result's invariants are the constraints it was verified to satisfy; it is
// admissible when every hard constraint passes.
package check
