// Package mermaidtest checks Mermaid diagrams with the Mermaid CLI
// (npm @mermaid-js/mermaid-cli), the renderer GitHub's own Mermaid
// follows: a diagram optr writes into a step summary or a comment must
// parse there, and only a real Mermaid can tell.
package mermaidtest
