// Package datalake owns the on-disk layout of optr's run artifacts (architecture
// §4.4): where each run's resolved workflow, agent outputs, selection and
// result live, and how they are written — atomically, and never over a file
// a finished run wrote.
//
// It is also the one writer of every file optr keeps under a datalake: the
// packages that own other parts of the layout (checkpoint files, a
// delegation's spec folder, the watcher's .coordination directory) write
// them through [WriteOnce], [Replace], [Append] and [CreateExclusive], so
// that each byte is redacted by construction when the lake was opened with
// [OpenRedacted]. Being the one writer, it also notes every file it writes
// under a run directory ([FileWritten]): a run records only those and the
// sanitised agent-files/ ([Run.Committable]), never a file an unconfined
// agent left beside $OPTR_OUTPUT_DIR. Files outside a datalake (the
// config, the workspace) are not written through it.
package datalake
