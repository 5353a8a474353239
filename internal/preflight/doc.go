// Package preflight checks, before the first agent starts, everything a
// run will need at its end: that the ledger and the datalake can be
// written, that the ledger's head can be read, that the Action's
// datalake stays inside the workspace it commits, and that the
// workspace's git configuration carries no credential an agent could
// read (actions/checkout's persisted token). A run that would only
// fail after every agent ran and spent its tokens is refused at once, with
// a message naming what is wrong (exit 2).
package preflight
