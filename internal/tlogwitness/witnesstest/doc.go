// Package witnesstest runs transparency-dev/witness's reference witness
// (C2SP tlog-witness) in process behind an HTTP server, for tests and
// benchmarks: never optr's own verification code. It trusts the logs it is
// given by origin and key, keeps its state in memory, counts the requests
// it receives, and can be taken down and brought back.
package witnesstest
