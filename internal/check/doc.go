// Package check turns named constraints into real checks of an agent's output,
// one kind per file: contains, regex and not-regex, max-length, json,
// json-schema, command and judge (an LLM agent that answers pass or fail with
// a reason). The kinds, their keys and their validation are the config's
// registry (config.CheckKinds); each kind's file registers how it is built
// and described (kinds.go).
//
// Resolve binds a run's constraints — every constraint the config defines, in
// file order, plus those an intent or pipeline names — to their checkers. A
// name the config does not define is judged by a default judge agent when the
// caller has one, and is otherwise unverified: it neither blocks nor scores.
//
// Evaluate runs every check on one output. A result's invariants are the
// constraints it was verified to satisfy, not what the agent claims; it is
// admissible when every hard constraint passes. A check that cannot run (a
// missing schema file, a judge that does not answer, a panic) leaves its
// constraint unverified with the reason, never passed.
package check
