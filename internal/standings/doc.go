// Package standings reads the ledger back to say which agents win on this
// repository's work and what they cost (architecture §4.17): per agent, its runs,
// how often it was selected (win rate), how often its result was
// admissible, its median and 90th-percentile exec time, its tokens, cost
// and cost per win; per constraint, how often an output passed it; per
// workflow, its runs and their outcomes.
//
// Read computes them over a window of the ledger, reading only the
// segments the window needs. They are shown as a terminal table (Text),
// JSON (JSONView), the end of an Action run's step summary (Markdown: a
// table and Mermaid xychart-beta charts) and one self-contained HTML page
// (HTML: inline SVG charts, over time too; no script, nothing fetched).
package standings
