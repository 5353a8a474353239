package frames

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestHandoffPayloads covers the HANDOFF payloads a staged pipeline must
// survive (architecture §4.10): the parser reports a stage name exactly as
// written, paths included (the stages runner decides whether it is the
// next stage), and drops what cannot be one. Every input is also fed byte
// by byte and split at every position.
func TestHandoffPayloads(t *testing.T) {
	t.Parallel()
	handoff := func(stage string) Event {
		raw := "<<<OPTR:HANDOFF:" + stage + ">>>"
		return Event{Type: Handoff, Prefix: "OPTR", Stage: stage, Payload: stage, Raw: raw}
	}
	longest := strings.Repeat("s", maxStageLen)
	tests := []struct {
		name      string
		in        string
		out       string
		events    []Event
		malformed int
	}{
		{"a relative path", "<<<OPTR:HANDOFF:../next>>>\n", "", []Event{handoff("../next")}, 0},
		{"an absolute path", "<<<OPTR:HANDOFF:/etc/passwd>>>", "", []Event{handoff("/etc/passwd")}, 0},
		{"backslashes and dots", `<<<OPTR:HANDOFF:..\..\next>>>`, "", []Event{handoff(`..\..\next`)}, 0},
		{"not ASCII", "<<<OPTR:HANDOFF:ステージ>>>", "", []Event{handoff("ステージ")}, 0},
		{"the longest stage", "<<<OPTR:HANDOFF:" + longest + ">>>", "", []Event{handoff(longest)}, 0},
		{"one byte too long", "<<<OPTR:HANDOFF:" + longest + "s>>>", "", nil, 1},
		{"empty", "<<<OPTR:HANDOFF:>>>", "", nil, 1},
		{">>> after the stage", "<<<OPTR:HANDOFF:next>>>>>>", ">>>", []Event{handoff("next")}, 0},
		{">>> inside ends the stage", "<<<OPTR:HANDOFF:a>>>b>>>\n", "b>>>\n", []Event{handoff("a")}, 0},
		{"a newline inside", "<<<OPTR:HANDOFF:a\nb>>>", "\nb>>>", nil, 1},
		{"a NUL inside", "<<<OPTR:HANDOFF:a\x00b>>>", "", nil, 1},
		{"a tab inside", "<<<OPTR:HANDOFF:a\tb>>>", "", nil, 1},
		{"unclosed at the end", "<<<OPTR:HANDOFF:next", "", nil, 1},
		{"a frame inside", "<<<OPTR:HANDOFF:a<<<OPTR:HANDOFF:b>>>", "", []Event{handoff("b")}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, f := range feeds(tt.in) {
				got := parse(t, Options{}, f.chunks...)
				if diff := cmp.Diff(tt.events, got.Events, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("%s: events (-want +got):\n%s", f.name, diff)
				}
				if got.Out != tt.out || len(got.Malformed) != tt.malformed {
					t.Fatalf("%s: output %q with %d malformed, want %q with %d", f.name, got.Out, len(got.Malformed), tt.out, tt.malformed)
				}
			}
		})
	}
}
