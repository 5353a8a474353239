// Package status is the one vocabulary of how things stand in a run: the
// run itself, each agent, each stage of a stage chain and each verdict of
// a constraint check.
//
// The words are the ones people and programs read — the Action's `status`
// output, the ledger's `run` entry and its results and stages, the score
// table, agent-outputs/<agent>.json, optr-selection.json and the stage
// files (architecture §4.2, §4.3, §4.10) — so they are named here once and
// never change. Every package that says how something stands uses this
// type; none defines a status of its own.
//
// The live states of a checklist (a stage that is "ready" or "working", a
// topic whose report is "written") are what a progress display draws
// while a run goes on, not a status anything records: they stay with the
// display that draws them (package stages, package delegate).
package status
