// Package clocktest is a clock for tests that moves only when the test
// moves it, for code that takes its clock as a value (recovery.Clock,
// progress.Clock, a Now function). Code that uses package time directly
// is tested inside a testing/synctest bubble instead.
package clocktest
