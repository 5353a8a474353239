package delegate

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePlan(t *testing.T) {
	t.Parallel()
	two := []Topic{{Topic: "hash chains", Focus: "the facts"}, {Topic: "witnesses", Focus: "the facts"}}
	tests := []struct {
		name   string
		output string
		llm    bool
		want   []Topic
		reason string
	}{
		{name: "command plan", output: commandPlan("hash chains", "witnesses"), want: two},
		{name: "command plan with the array on several lines and CRLF",
			output: "INVOCATION_PLAN_READY: 1\r\n[\r\n {\"topic\": \"hash chains\"}\r\n]\r\nRESEARCH_COORDINATOR_COMPLETE: SUCCESS\r\n",
			want:   []Topic{{Topic: "hash chains"}}},
		{name: "llm plan", llm: true, output: `{"topics":[{"topic":"hash chains","focus":"the facts"},{"topic":"witnesses","focus":"the facts"}]}`, want: two},
		{name: "llm plan in a fence with prose", llm: true, output: "Here:\n```json\n{\"topics\":[{\"topic\":\"hash chains\"}]}\n```", want: []Topic{{Topic: "hash chains"}}},
		{name: "command without the ready line", output: "[]\nRESEARCH_COORDINATOR_COMPLETE: SUCCESS", reason: ReasonPlanMissing},
		{name: "command with a count that is not a number", output: "INVOCATION_PLAN_READY: two\n[]\nRESEARCH_COORDINATOR_COMPLETE: SUCCESS", reason: ReasonPlanMalformed},
		{name: "command with a non-JSON plan", output: "INVOCATION_PLAN_READY: 1\n- hash chains\nRESEARCH_COORDINATOR_COMPLETE: SUCCESS", reason: ReasonPlanMalformed},
		{name: "command with an object, not an array", output: "INVOCATION_PLAN_READY: 1\n{\"topic\":\"a\"}\nRESEARCH_COORDINATOR_COMPLETE: SUCCESS", reason: ReasonPlanMalformed},
		{name: "command with two arrays", output: "INVOCATION_PLAN_READY: 1\n[{\"topic\":\"a\"}] [{\"topic\":\"b\"}]\nRESEARCH_COORDINATOR_COMPLETE: SUCCESS", reason: ReasonPlanMalformed},
		{name: "command announcing more than it lists", output: "INVOCATION_PLAN_READY: 3\n[{\"topic\":\"a\"}]\nRESEARCH_COORDINATOR_COMPLETE: SUCCESS", reason: ReasonPlanMalformed},
		{name: "command without the complete line", output: "INVOCATION_PLAN_READY: 1\n[{\"topic\":\"a\"}]\n", reason: ReasonPlanIncomplete},
		{name: "command that ends in failure", output: "INVOCATION_PLAN_READY: 1\n[{\"topic\":\"a\"}]\nRESEARCH_COORDINATOR_COMPLETE: FAILURE", reason: ReasonPlanIncomplete},
		{name: "zero topics", output: commandPlan(), reason: ReasonPlanEmpty},
		{name: "more than max-topics", output: commandPlan("a", "b", "c", "d", "e"), reason: ReasonPlanTooLong},
		{name: "duplicate topics", output: commandPlan("Hash chains", "witnesses", "hash-chains"), reason: ReasonPlanDuplicate},
		{name: "a topic whose slug is empty", output: commandPlan("hash chains", "???"), reason: ReasonPlanEmptySlug},
		{name: "an empty topic", output: commandPlan(""), reason: ReasonPlanEmptySlug},
		{name: "a topic with a tab", output: commandPlan(`a\tb`), reason: ReasonPlanBadTopic},
		{name: "llm answer without topics", llm: true, output: `{"plan":[]}`, reason: ReasonPlanMalformed},
		{name: "llm answer that is not JSON", llm: true, output: "hash chains, witnesses", reason: ReasonPlanMalformed},
		{name: "llm empty answer", llm: true, output: " ", reason: ReasonPlanMissing},
		{name: "llm zero topics", llm: true, output: `{"topics":[]}`, reason: ReasonPlanEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParsePlan(tt.output, tt.llm, 4)
			if tt.reason != "" {
				var pe *PlanError
				if !errors.As(err, &pe) || pe.Reason != tt.reason {
					t.Fatalf("ParsePlan = %v, %v; want a %s PlanError", got, err, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Hash chains":               "hash-chains",
		"  C2SP / tlog-checkpoint ": "c2sp-tlog-checkpoint",
		"Überblick":                 "berblick",
		"???":                       "",
		"../../etc/passwd":          "etc-passwd",
		strings.Repeat("ab ", 30):   strings.Repeat("ab-", 15) + "ab",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParsePlan(f *testing.F) {
	f.Add(commandPlan("a", "b"), false)
	f.Add(`{"topics":[{"topic":"a"}]}`, true)
	f.Add("INVOCATION_PLAN_READY: 1\n[{\"topic\":\"\\u0000\"}]\nRESEARCH_COORDINATOR_COMPLETE: SUCCESS", false)
	f.Fuzz(func(t *testing.T, out string, llm bool) {
		topics, err := ParsePlan(out, llm, 4)
		if err != nil {
			var pe *PlanError
			if !errors.As(err, &pe) || pe.Reason == "" {
				t.Fatalf("error %v is not a named PlanError", err)
			}
			return
		}
		if len(topics) < 1 || len(topics) > 4 {
			t.Fatalf("%d topics accepted", len(topics))
		}
		seen := map[string]bool{}
		for _, tp := range topics {
			s := Slug(tp.Topic)
			if s == "" || seen[s] {
				t.Fatalf("topic %q accepted with slug %q", tp.Topic, s)
			}
			seen[s] = true
		}
	})
}
