package progress

import (
	"fmt"
	"strings"

	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/status"
)

// diagramAgents bounds the agents drawn one by one: Mermaid refuses
// diagrams with more than 500 edges, and a wall of boxes helps no one.
const diagramAgents = 40

// Diagram renders the run as a Mermaid flowchart (without the code fence):
// the intent fans out to each agent, each agent's result goes through the
// checks (dotted when it was not admissible), the checks lead to π* and
// π* to the ledger entry. Node ids are generated; labels are quoted and
// escaped, so no agent name or title can change the diagram's structure.
func Diagram(v View) string {
	type node struct {
		name, state string
		scored      bool
		admissible  bool
		score       float64
	}
	rows := make(map[string]Row, len(v.Table))
	for _, r := range v.Table {
		rows[r.Agent] = r
	}
	var nodes []node
	if len(v.Agents) > 0 {
		for _, a := range v.Agents {
			r, ok := rows[a.Name]
			nodes = append(nodes, node{name: a.Name, state: string(a.State), scored: ok, admissible: r.Admissible, score: r.Score})
		}
	} else {
		for _, r := range v.Table {
			nodes = append(nodes, node{name: r.Agent, scored: true, admissible: r.Admissible, score: r.Score})
		}
	}
	if len(nodes) == 0 {
		return ""
	}

	var b strings.Builder
	b.WriteString("flowchart LR\n")
	intent := "intent"
	if v.Title != "" {
		intent += ": " + v.Title
	}
	fmt.Fprintf(&b, "  intent([%s])\n", label(intent))
	b.WriteString("  checks{\"checks\"}\n")
	for i, n := range nodes {
		if i == diagramAgents {
			fmt.Fprintf(&b, "  more[%s]\n  intent --> more -.-> checks\n", label(fmt.Sprintf("… %d more agents", len(nodes)-i)))
			break
		}
		text := n.name
		if n.state != "" {
			text += " · " + n.state
		}
		if n.scored {
			text += fmt.Sprintf(" · %.1f", n.score)
		}
		fmt.Fprintf(&b, "  a%d[%s]\n  intent --> a%d\n", i, label(text), i)
		switch {
		case !n.scored:
			fmt.Fprintf(&b, "  a%d -.-> checks\n", i)
		case n.admissible:
			fmt.Fprintf(&b, "  a%d -->|\"admissible\"| checks\n", i)
		default:
			fmt.Fprintf(&b, "  a%d -.->|\"rejected\"| checks\n", i)
		}
	}
	switch {
	case v.Selected != "":
		fmt.Fprintf(&b, "  checks --> pi[[%s]]\n", label("π* "+v.Selected))
		if v.LedgerHash != "" {
			fmt.Fprintf(&b, "  pi --> ledger[(%s)]\n", label("ledger "+shortHash(v.LedgerHash)))
		}
	case v.Status != status.Running && len(v.Table) > 0:
		b.WriteString("  checks --> none[\"no admissible result\"]\n")
		if v.LedgerHash != "" {
			fmt.Fprintf(&b, "  none --> ledger[(%s)]\n", label("ledger "+shortHash(v.LedgerHash)))
		}
	}
	return b.String()
}

// mermaidEscapes turns every character that means something to Mermaid or
// to the Markdown around it into a Mermaid entity code. A Replacer makes one
// pass, so the '#' the codes start with is not escaped again.
var mermaidEscapes = strings.NewReplacer(
	"#", "#35;",
	"\"", "#quot;",
	"<", "#lt;",
	">", "#gt;",
	"&", "#amp;",
	"`", "#96;",
	"|", "#124;",
	"[", "#91;", "]", "#93;",
	"{", "#123;", "}", "#125;",
	"(", "#40;", ")", "#41;",
	";", "#59;",
	"%", "#37;",
	"\\", "#92;",
)

// label renders untrusted text as a quoted Mermaid label on one line.
func label(s string) string {
	return "\"" + mermaidEscapes.Replace(markdown.OneLine(s, 60)) + "\""
}
