package progress

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/status"
)

var (
	nodeRE = regexp.MustCompile(`^  [a-z][a-z0-9]*(\(\[|\[\[|\[\(|\[|\{)"[^"\n]*"(\]\)|\]\]|\)\]|\]|\})$`)
	edgeRE = regexp.MustCompile(`^  [a-z][a-z0-9]*( (-->|-\.->)(\|"[^"\n]*"\|)? [a-z][a-z0-9]*(\[\[|\[\(|\[)?("[^"\n]*"(\]\]|\)\]|\]))?)+$`)
)

// checkDiagram fails when a line of d is not a plain node or edge
// statement: a label that escaped its quotes would show up here.
func checkDiagram(t *testing.T, d string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	if lines[0] != "flowchart LR" {
		t.Fatalf("first line %q", lines[0])
	}
	for _, l := range lines[1:] {
		if !nodeRE.MatchString(l) && !edgeRE.MatchString(l) {
			t.Errorf("unexpected diagram line %q", l)
		}
	}
	if strings.Contains(d, "```") {
		t.Error("the diagram could close its Markdown fence")
	}
}

func TestDiagramHostileLabels(t *testing.T) {
	t.Parallel()
	v := completedView()
	v.Title = "x\"]) --> evil[\"pwned\n```\n<script>#quot;|;%%"
	v.Agents[0].Name = "a\"] --> b[\"c"
	v.Table[0].Agent = v.Agents[0].Name
	v.Selected = v.Agents[0].Name
	d := Diagram(v)
	checkDiagram(t, d)
	for _, bad := range []string{"<script>", "\"pwned", "evil["} {
		if strings.Contains(d, bad) {
			t.Errorf("diagram contains %q", bad)
		}
	}
}

func TestDiagramGoldenViewsAreWellFormed(t *testing.T) {
	t.Parallel()
	for _, v := range []View{runningView(), completedView(), failedView(), pausedView()} {
		checkDiagram(t, Diagram(v))
	}
	if Diagram(View{}) != "" {
		t.Error("an empty view has a diagram")
	}
	tableOnly := completedView()
	tableOnly.Agents = nil
	checkDiagram(t, Diagram(tableOnly))
}

func TestDiagramManyAgents(t *testing.T) {
	t.Parallel()
	v := completedView()
	v.Agents = nil
	for i := range 500 {
		v.Agents = append(v.Agents, AgentLine{Name: fmt.Sprintf("agent-%d", i), State: status.Succeeded})
	}
	d := Diagram(v)
	checkDiagram(t, d)
	edges := strings.Count(d, "-->") + strings.Count(d, "-.->")
	if edges > 100 {
		t.Errorf("%d edges for 500 agents; Mermaid refuses more than 500 and people more than a few dozen", edges)
	}
	if !strings.Contains(d, "460 more agents") {
		t.Error("the agents left out are not counted")
	}
}
