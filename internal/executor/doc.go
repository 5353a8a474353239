// Package executor fans one intent out to N agents concurrently (bounded by
// MaxParallel), runs each to completion under the recovery policy, captures
// every result the moment its agent finishes (the Sink writes it to the
// datalake before anything else happens), and then checks it against the
// run's constraints.
//
// One agent's failure never cancels the others: each failure is recorded in
// that agent's Result. Wall time therefore tracks the slowest agent, not the
// sum of them.
package executor
