// Package preset is the registry of presets for command agents
// (architecture §4.18): what each coding-agent CLI people run — Claude Code,
// Codex CLI, Gemini CLI, the Copilot CLI — needs to run headless under
// optr, as measured with the releases each entry names (architecture §6).
//
// A preset is plain values and the reader of its CLI's output: the npm
// package and the command it installs; the arguments of a headless run
// that reads the intent on stdin and streams events on stdout (so the
// watcher sees life); the variables that turn telemetry and update checks
// off; the files its HOME needs (settings, made for the environment the
// agent runs with, so that a base URL the model gateway gives is in them);
// the providers it speaks, for the gateway's wiring; and a Reader of its
// event stream, which yields its final answer (the agent's output), its
// turns, its tool calls, and the use and cost it reported itself.
//
// Everything a preset sets can be overridden in the agent's config: run
// replaces the command line (the model flag is still added when model is
// set), env adds or replaces variables, model and timeout apply as for
// any agent. Package config validates the name against Names; package
// command builds the agent.
package preset
