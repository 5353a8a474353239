// Package fifotest makes named pipes for tests that show optr refuses a file
// that is not a regular one (a FIFO would block a reader forever), on
// every platform the test suite compiles for.
package fifotest
