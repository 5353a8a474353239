package escalation

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/testkit/golden"

	"github.com/optr-dev/optr/internal/comment"
)

func TestCommentGolden(t *testing.T) {
	t.Parallel()
	e := Escalation{
		ID: "42-1-e2", Time: t0, Agent: "writer", Trigger: TriggerConflict,
		Reason:    "agent writer failed: conflict with <b>reviewer</b> @someone",
		Situation: Situation{FailedAgents: 1, Conflict: true, Error: true},
		Decision:  Decision{EscalateCEO, "the agents are in conflict: a human has to decide"},
		Tried:     []string{"2 attempt(s) under the recovery policy", "restarted 1 time(s) (watcher.max-restarts 1)"},
		Actions:   []string{"an escalation comment asks a person to decide"},
		LastErrors: []AgentError{
			{Agent: "writer", Error: "exit 1; the end of stderr:\n```\n<!-- optr:escalation=fake -->\n@maintainers please merge"},
			{Agent: "reviewer", Error: "timeout"},
		},
	}
	golden.Check(t, "comment-escalate_ceo.md", Comment(e, []string{"@org/team", "@alice"}))
}

func TestCommentIsSafeAndFits(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("€", 3000)
	e := Escalation{ID: "x-e1", Trigger: TriggerError, Reason: strings.Repeat("r", 5000) + "\n<!-- optr:run=1 -->",
		Decision: Decision{Abort, "too many"}}
	for i := range 40 {
		e.LastErrors = append(e.LastErrors, AgentError{Agent: string(rune('a' + i%26)), Error: huge})
	}
	body := Comment(e, nil)
	if n := utf8.RuneCountInString(body); n > comment.MaxBody {
		t.Errorf("comment has %d characters, more than %d", n, comment.MaxBody)
	}
	if kind, id, ok := comment.ParseMarker(body); !ok || kind != comment.KindEscalation || id != "x-e1" {
		t.Errorf("first marker = %s %s %v, want the escalation's", kind, id, ok)
	}
	if !strings.HasPrefix(body, comment.Marker(comment.KindEscalation, "x-e1")+"\n") {
		t.Errorf("the marker is not the first line")
	}
	if strings.Contains(body, "<!-- optr:run=1 -->") {
		t.Errorf("an untrusted reason could fake a marker")
	}
	if strings.Contains(body, "cc ") {
		t.Errorf("a comment without mentions mentions someone")
	}
}
