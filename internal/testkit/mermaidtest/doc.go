// Package mermaidtest checks Mermaid diagrams with Mermaid itself: its own
// parser in Node (npm mermaid, under jsdom) everywhere npm works, and a
// render with the Mermaid CLI (npm @mermaid-js/mermaid-cli) where a
// Chromium is at hand — the Mermaid GitHub's own renderer follows: a
// diagram optr writes into a step summary or a comment must parse there,
// and only a real Mermaid can tell.
package mermaidtest
