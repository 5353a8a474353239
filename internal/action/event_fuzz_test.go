package action

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/datalake"
)

func FuzzParseEvent(f *testing.F) {
	for _, name := range actiontest.Payloads() {
		event, _, _ := strings.Cut(name, ".")
		f.Add(event, actiontest.Payload(f, name))
	}
	f.Add("issues", []byte(`{"action":"labeled","label":{"name":"optr"},"issue":{"number":-1,"title":"","body":null}}`))
	f.Add("issue_comment", []byte(`{"action":"created","issue":{"number":2},"comment":{"body":"/optr choose 1 x"}}`))
	f.Fuzz(func(t *testing.T, event string, payload []byte) {
		in := defaultInputs()
		got, err := parseEvent(event, payload, in, "")
		if err != nil {
			return
		}
		switch got.Command {
		case Skip:
			if got.Reason == "" || strings.ContainsAny(got.Reason, "\r\n") {
				t.Fatalf("skip reason %q", got.Reason)
			}
		case Run:
			if strings.TrimSpace(got.Intent) == "" {
				t.Fatal("a run without an intent")
			}
			fallthrough
		case Choose, Abort:
			if err := datalake.ValidateWorkflow(got.Workflow); err != nil {
				t.Fatalf("invalid workflow %q let through: %v", got.Workflow, err)
			}
		case Outcome:
			if event != EventPullRequest || !got.PullRequest {
				t.Fatalf("an outcome of %s, pull request %d", event, got.Issue)
			}
		default:
			t.Fatalf("unknown action %q", got.Command)
		}
		if got.Command == Choose && got.Choice < 1 {
			t.Fatalf("choice %d", got.Choice)
		}
	})
}
