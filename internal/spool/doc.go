// Package spool keeps an agent's output, which may be tens of MiB, on disk
// instead of in memory. A Writer redacts what it is given (package redact,
// a secret split across writes included), bounds it, hashes it and counts
// it on the way; an output that stays small is kept in memory, a larger one
// goes to a file whose handle, a File, travels in its place.
package spool
