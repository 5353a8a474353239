// Package datalake owns the on-disk layout of optr's run artifacts (DESIGN
// §4.4): where each run's resolved workflow, agent outputs, selection and
// result live, and how they are written — atomically, and never over a file
// a finished run wrote.
package datalake
