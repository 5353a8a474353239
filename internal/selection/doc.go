// Package selection scores the results of a run and picks π*, the best
// admissible result.
//
// The score is the seed's formula, each part scaled by its configured weight
// (defaults in parentheses):
//
//   - invariants (40): the share of verified constraints the result satisfied
//     (a run with no verified constraints gives every result full marks);
//   - TTV (30): fastest time-to-value among the candidates divided by this
//     result's time-to-value;
//   - exec (20): fastest measured execution time divided by this result's;
//   - preference (10): 1 for the first agent of selection.preference, falling
//     linearly to 1/n for the n-th; 0 for agents not listed.
//
// Only results with output are candidates. π* is the admissible candidate
// with the highest score; with selection.prefer: cheaper, ties go first to
// the lower cost (a known cost before an unknown one: the caller settles
// what each candidate cost before it selects); then to the agent whose
// changes people kept (Record: of its pull requests merged or closed
// lately, the larger share merged, with more evidence counting more; an
// agent with no outcome stands between one mostly merged and one mostly
// closed), then to the shorter execution time, then to the agent name in
// byte order, so the same inputs always give the same choice.
// Result.TieBreak says in numbers when outcomes broke a tie.
// When no candidate is admissible the policy decides: least-bad takes the
// best-scoring candidate anyway, fail selects nothing, checkpoint asks a
// human (the caller raises the checkpoint).
package selection
