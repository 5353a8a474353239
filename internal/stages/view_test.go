package stages

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var demoLines = []Line{
	{Stage: "discuss", State: StateHandedOff, Attempt: 1, Elapsed: 1200 * time.Millisecond},
	{Stage: "decisions", State: StateHandedOff, Attempt: 1},
	{Stage: "execute", State: StateFailed, Attempt: 3, Restarts: 2, Error: "sh exited with status 1\n<!-- optr:run=forged --> @octocat"},
	{Stage: "mind", State: StateReady},
}

func TestChecklist(t *testing.T) {
	t.Parallel()
	got := Checklist(demoLines)
	want := "- [x] 1. **discuss** — handed off · 1.2s\n" +
		"- [x] 2. **decisions** — handed off\n" +
		"- [ ] 3. **execute** — failed · crashed and restarted 2×: sh exited with status 1\n" +
		"- [ ] 4. **mind** — ready\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Checklist (-want +got):\n%s", diff)
	}
	live := Checklist([]Line{{Stage: "b", State: StateCrashed, Attempt: 1, Restarts: 1, Error: "x <!-- optr:run=1 --> @octocat"}})
	if strings.Contains(live, "<!-- optr:") || strings.Contains(live, " @octocat") {
		t.Errorf("an untrusted error broke out of the checklist: %q", live)
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	want := "✓ 1. discuss    handed off · 1.2s\n" +
		"✓ 2. decisions  handed off\n" +
		"✗ 3. execute    failed · crashed and restarted 2×: sh exited with status 1\n" +
		"· 4. mind       ready\n"
	if diff := cmp.Diff(want, Text(demoLines)); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
}

func TestDiagram(t *testing.T) {
	t.Parallel()
	want := `flowchart LR
  s0["1. discuss · handed off"]
  s1["2. decisions · handed off"]
  s2["3. execute · failed"]
  s2 -.->|"crashed, restarted 2×"| s2
  s3["4. mind · ready"]
  s0 -->|"HANDOFF"| s1
  s1 -->|"HANDOFF"| s2
  s2 -.-> s3
  s2 --> esc{{"escalated"}}
`
	if diff := cmp.Diff(want, Diagram(demoLines)); diff != "" {
		t.Errorf("Diagram (-want +got):\n%s", diff)
	}
	done := Diagram([]Line{{Stage: "a", State: StateHandedOff}, {Stage: "b", State: StateDone}})
	if !strings.Contains(done, `s1 --> result[["result.md"]]`) {
		t.Errorf("a finished chain does not end in the result:\n%s", done)
	}
}

// TestBoardFollowsTheDemo folds the demo run's events into a board: it
// ends where the outcome's own lines say the run ended.
func TestBoardFollowsTheDemo(t *testing.T) {
	t.Parallel()
	c, factory, _ := demo(t)
	board := NewBoard(c.Stages)
	var seen []string
	in := input(newRun(t, nil, "r1"), c, factory, nil, &sleeps{})
	in.OnEvent = func(e Event) {
		board.Apply(e)
		if e.Stage == "execute" {
			seen = append(seen, string(e.State))
		}
	}
	out, err := Run(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ready", "working", "crashed", "working", "handed off"}, seen); diff != "" {
		t.Errorf("execute's states (-want +got):\n%s", diff)
	}
	strip := func(ls []Line) []Line {
		for i := range ls {
			ls[i].Elapsed, ls[i].Error = 0, ""
		}
		return ls
	}
	if diff := cmp.Diff(strip(out.Lines()), strip(board.Lines())); diff != "" {
		t.Errorf("board and outcome disagree (-outcome +board):\n%s", diff)
	}
	if !strings.Contains(Diagram(out.Lines()), `s2 -.->|"crashed, restarted 1×"| s2`) {
		t.Errorf("the diagram does not show execute's restart:\n%s", Diagram(out.Lines()))
	}
}
