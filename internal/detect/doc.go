// Package detect looks for threats in π*'s result before optr delivers it
// (architecture §4.15): a secret in its output or in the lines its patch adds
// (gitleaks' rules, package secretscan — the rules redaction applies), a
// patch that touches automation (workflows, git hooks, CI and build entry
// points), adds an executable or binary file or a long encoded blob, or
// fetches code and runs it; and, when configured, an LLM detector asked
// with a fixed prompt. A Finding names what was found and where, never
// the secret itself. What a finding does to the run (a THREAT
// checkpoint, a blocked delivery, a warning) is the pipeline's to decide.
package detect
