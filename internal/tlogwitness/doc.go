// Package tlogwitness has the ledger's checkpoints cosigned by witnesses
// optr does not control (architecture §4.13), as C2SP tlog-witness specifies
// (https://c2sp.org/tlog-witness): after a commit-back moved the ledger,
// Submit sends each configured witness the signed checkpoint with the size
// it last cosigned and a consistency proof from there, and keeps the
// cosignature it answers with, checked against the witness's key. A
// witness cosigns only a checkpoint that extends the last one it saw, so
// a ledger rewritten after it was witnessed can no longer be cosigned, and
// anyone holding an older cosigned checkpoint can tell.
//
// Cosigners reads a cosigned checkpoint back: which of the named witnesses
// cosigned it (`optr ledger verify --witness-key`).
//
// The protocol's client (one POST, a handful of status codes) is written
// here rather than taken from transparency-dev/witness's client/http: that
// module has no release (pseudo-versions only), its client pulls the
// witness server's package (OpenTelemetry, klog) into the Action's binary,
// and it reads an answer of any length, where a witness is a third party
// whose answer optr bounds. The tests drive this client against that
// module's reference witness, in process. The cosignatures are checked by
// transparency-dev/formats/note and golang.org/x/mod/sumdb/note.
package tlogwitness
