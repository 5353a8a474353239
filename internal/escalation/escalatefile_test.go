package escalation

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseTrigger(t *testing.T) {
	t.Parallel()
	tests := map[string]Trigger{
		"stuck":            TriggerStuck,
		" Stuck ":          TriggerStuck,
		"`stuck`":          TriggerStuck,
		"**STUCK**":        TriggerStuck,
		"stalled":          TriggerStuck,
		"no progress":      TriggerStuck,
		"stuck (60s)":      TriggerStuck,
		"timeout":          TriggerTimeout,
		"timed out":        TriggerTimeout,
		"timed_out":        TriggerTimeout,
		"conflict":         TriggerConflict,
		"deadlock.":        TriggerDeadlock,
		"error":            TriggerError,
		"failure":          TriggerError,
		"crash":            TriggerError,
		"":                 "",
		"budget":           "budget",
		"Something Else":   "something",
		"deadlocked agent": TriggerDeadlock,
	}
	for in, want := range tests {
		if got := ParseTrigger(in); got != want {
			t.Errorf("ParseTrigger(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseEscalationFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want EscalationFile
	}{
		{
			name: "the seed's manual test",
			in:   "# Escalation: test-001\n\n**Reason:** Agent timeout during test\n**Trigger:** stuck\n\nAgent test-agent has been stuck for 60 seconds.\n",
			want: EscalationFile{ID: "test-001", Reason: "Agent timeout during test", TriggerText: "stuck", Trigger: TriggerStuck,
				Body:   "Agent test-agent has been stuck for 60 seconds.",
				Fields: map[string]string{"reason": "Agent timeout during test", "trigger": "stuck"}},
		},
		{
			name: "other spellings, an agent, CRLF",
			in:   "#  Escalation:  e-2  \r\n- **Trigger**: Conflict\r\n**Agent:** `writer`\r\n**reason:**   two agents edit one file\r\nmore text\r\n",
			want: EscalationFile{ID: "e-2", Reason: "two agents edit one file", TriggerText: "Conflict", Trigger: TriggerConflict,
				Agent: "writer", Body: "more text",
				Fields: map[string]string{"reason": "two agents edit one file", "trigger": "Conflict", "agent": "`writer`"}},
		},
		{
			name: "empty",
			in:   "",
			want: EscalationFile{Fields: map[string]string{}},
		},
		{
			name: "no fields, first heading wins, first field wins",
			in:   "# Escalation: a\n# Escalation: b\n**Trigger:** error\n**Trigger:** stuck\n",
			want: EscalationFile{ID: "a", TriggerText: "error", Trigger: TriggerError, Body: "# Escalation: b",
				Fields: map[string]string{"trigger": "error"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, ParseEscalationFile(tt.in)); diff != "" {
				t.Errorf("ParseEscalationFile mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEscalationFileRoundTrip(t *testing.T) {
	t.Parallel()
	e := &Escalation{ID: "run-1-e3", Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Agent: "alpha",
		Trigger: TriggerTimeout, Reason: "agent alpha\ntimed out", Detail: "the last line\nof stderr"}
	got := ParseEscalationFile(renderEscalationFile(e))
	want := EscalationFile{ID: "run-1-e3", Reason: "agent alpha timed out", TriggerText: "timeout", Trigger: TriggerTimeout,
		Agent: "alpha", Body: "the last line\nof stderr",
		Fields: map[string]string{"reason": "agent alpha timed out", "trigger": "timeout", "agent": "alpha", "time": "2026-01-02T03:04:05Z"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
}

func TestSafeID(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"test-001":              "test-001",
		"../../etc/passwd":      "etc-passwd",
		"a b\tc":                "a-b-c",
		"…":                     "",
		".hidden":               "hidden",
		strings.Repeat("x", 99): strings.Repeat("x", 64),
		// A dash that fills the 64th place ends the id: nothing follows it.
		strings.Repeat("0", 63) + " 0": strings.Repeat("0", 63),
	}
	for in, want := range tests {
		if got := safeID(in); got != want {
			t.Errorf("safeID(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseEscalationFile(f *testing.F) {
	f.Add("# Escalation: test-001\n\n**Reason:** Agent timeout during test\n**Trigger:** stuck\n\nbody\n")
	f.Add("**Trigger**: timed out\r\n- **Agent:** a\n")
	f.Add("# Escalation: \n**:** \n**x")
	f.Fuzz(func(t *testing.T, in string) {
		ef := ParseEscalationFile(in)
		if strings.ContainsAny(ef.ID, "\n") || strings.ContainsAny(ef.Reason, "\n") || strings.ContainsAny(ef.TriggerText, "\n") {
			t.Fatalf("a one-line field holds a newline: %+v", ef)
		}
		if ef.Trigger != ParseTrigger(ef.TriggerText) {
			t.Fatalf("Trigger %q is not the reading of %q", ef.Trigger, ef.TriggerText)
		}
		id := safeID(ef.ID)
		if strings.ContainsAny(id, "/\\ \n") || strings.HasPrefix(id, ".") || len(id) > 64 {
			t.Fatalf("safeID(%q) = %q is not safe in a file name", ef.ID, id)
		}
		// What optr writes from a parsed file parses back to the same fields.
		if id != "" {
			e := &Escalation{ID: id, Reason: ef.Reason, Trigger: ef.Trigger, Agent: oneLine(ef.Agent)}
			back := ParseEscalationFile(renderEscalationFile(e))
			if back.ID != id || back.Trigger != ParseTrigger(string(e.Trigger)) {
				t.Fatalf("round trip of %+v gave %+v", e, back)
			}
		}
	})
}
