package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/action/actiontest"
)

const (
	fixtureTitle = "Spelling error in the README file"
	fixtureBody  = "It looks like you accidently spelled 'commit' with two 't's."
	// formBody is the issue-form body of issues.labeled.optr.json.
	formBody = "### Intent\r\n\r\nFix the spelling of 'commit' in the README.\r\n\r\n### Constraints\r\n\r\n- `no-todo`\r\n- max-length, Markdown\r\n- not a slug!\r\n\r\n### Notes\r\n\r\n_No response_"
)

func defaultInputs() Inputs {
	return Inputs{Command: CommandAuto, TriggerLabel: "optr", Datalake: ".optr", Commit: true}
}

// issueTrigger is what every issue fixture carries.
func issueTrigger(event string) Trigger {
	return Trigger{EventName: event, Issue: 1, Sender: "Codertocat", SenderType: "User", Title: fixtureTitle, Body: fixtureBody}
}

func setComment(t *testing.T, body string) func(map[string]any) {
	return func(m map[string]any) { obj(t, m, "comment")["body"] = body }
}

func TestParse(t *testing.T) {
	t.Parallel()
	fixture := func(name string) func(*testing.T) string {
		return func(t *testing.T) string { return actiontest.PayloadFile(t, name, nil) }
	}
	mutated := func(name string, edit func(*testing.T) func(map[string]any)) func(*testing.T) string {
		return func(t *testing.T) string { return actiontest.PayloadFile(t, name, edit(t)) }
	}
	comment := func(body string) func(*testing.T) string {
		return mutated("issue_comment.created.json", func(t *testing.T) func(map[string]any) { return setComment(t, body) })
	}
	commentTrigger := func(tr Trigger) Trigger {
		tr.CommentID, tr.CommentKind = 492700400, CommentIssue
		return tr
	}
	with := func(tr Trigger, f func(*Trigger)) Trigger { f(&tr); return tr }

	tests := []struct {
		name    string
		event   string
		payload func(*testing.T) string
		inputs  func(*Inputs)
		want    Trigger
	}{
		{
			name: "labeled with another label", event: "issues", payload: fixture("issues.labeled.json"),
			want: with(issueTrigger("issues"), func(tr *Trigger) {
				tr.Command, tr.Reason = Skip, `issues.labeled: the label "bug" is not the trigger label "optr"`
			}),
		},
		{
			name: "labeled with another label, organization payload", event: "issues", payload: fixture("issues.labeled.with-organization.json"),
			want: with(issueTrigger("issues"), func(tr *Trigger) {
				tr.Command, tr.Reason = Skip, `issues.labeled: the label "bug" is not the trigger label "optr"`
			}),
		},
		{
			name: "labeled optr, issue-form body", event: "issues", payload: fixture("issues.labeled.optr.json"),
			want: with(issueTrigger("issues"), func(tr *Trigger) {
				tr.Command, tr.Workflow, tr.Body = Run, "issue-1", formBody
				tr.Intent = fixtureTitle + "\n\n" + strings.ReplaceAll(formBody, "\r\n", "\n")
				tr.Constraints = []string{"no-todo", "max-length", "markdown"}
				tr.RejectedConstraints = []string{"not a slug!"}
			}),
		},
		{
			name: "labeled, label compared without case", event: "issues", payload: fixture("issues.labeled.optr.json"),
			inputs: func(in *Inputs) { in.TriggerLabel = "OPTR"; in.Constraints = "json, Markdown" },
			want: with(issueTrigger("issues"), func(tr *Trigger) {
				tr.Command, tr.Workflow, tr.Body = Run, "issue-1", formBody
				tr.Intent = fixtureTitle + "\n\n" + strings.ReplaceAll(formBody, "\r\n", "\n")
				tr.Constraints = []string{"json", "markdown", "no-todo", "max-length"}
				tr.RejectedConstraints = []string{"not a slug!"}
			}),
		},
		{
			name: "opened without the label", event: "issues", payload: fixture("issues.opened.json"),
			want: with(issueTrigger("issues"), func(tr *Trigger) {
				tr.Command, tr.Reason = Skip, `issues.opened: the issue does not carry the trigger label "optr"`
			}),
		},
		{
			name: "opened with the label", event: "issues", payload: fixture("issues.opened.optr.json"),
			want: with(issueTrigger("issues"), func(tr *Trigger) {
				tr.Command, tr.Workflow, tr.Intent = Run, "issue-1", fixtureTitle+"\n\n"+fixtureBody
			}),
		},
		{
			name: "opened with an empty body, no label", event: "issues", payload: fixture("issues.opened.with-empty-body.json"),
			want: with(issueTrigger("issues"), func(tr *Trigger) {
				tr.Body = ""
				tr.Command, tr.Reason = Skip, `issues.opened: the issue does not carry the trigger label "optr"`
			}),
		},
		{
			name: "opened with an empty body and the label", event: "issues",
			payload: mutated("issues.opened.with-empty-body.json", func(t *testing.T) func(map[string]any) {
				return func(m map[string]any) {
					issue := obj(t, m, "issue")
					issue["labels"] = append(issue["labels"].([]any), map[string]any{"name": "optr"})
				}
			}),
			want: with(issueTrigger("issues"), func(tr *Trigger) {
				tr.Body = ""
				tr.Command, tr.Workflow, tr.Intent = Run, "issue-1", fixtureTitle
			}),
		},
		{
			name: "other issues action", event: "issues",
			payload: mutated("issues.opened.optr.json", func(*testing.T) func(map[string]any) {
				return func(m map[string]any) { m["action"] = "closed" }
			}),
			want: with(issueTrigger("issues"), func(tr *Trigger) {
				tr.Command, tr.Reason = Skip, `issues.closed does not start optr: label the issue "optr" or comment /optr run`
			}),
		},
		{
			name: "plain comment", event: "issue_comment", payload: fixture("issue_comment.created.json"),
			want: commentTrigger(with(issueTrigger("issue_comment"), func(tr *Trigger) {
				tr.Command, tr.Reason = Skip, "the comment is not an /optr command"
			})),
		},
		{
			name: "plain comment, organization payload", event: "issue_comment", payload: fixture("issue_comment.created.with-organization.json"),
			want: commentTrigger(with(issueTrigger("issue_comment"), func(tr *Trigger) {
				tr.Command, tr.Reason = Skip, "the comment is not an /optr command"
			})),
		},
		{
			name: "/optr run", event: "issue_comment", payload: fixture("issue_comment.created.optr-run.json"),
			inputs: func(in *Inputs) { in.Pipeline = "from-input" },
			want: commentTrigger(with(issueTrigger("issue_comment"), func(tr *Trigger) {
				tr.Command, tr.Workflow, tr.Intent, tr.Pipeline = Run, "issue-1", fixtureTitle+"\n\n"+fixtureBody, "from-input"
			})),
		},
		{
			name: "/optr run fast", event: "issue_comment", payload: comment("  \n/optr run fast"),
			inputs: func(in *Inputs) { in.Pipeline = "from-input" },
			want: commentTrigger(with(issueTrigger("issue_comment"), func(tr *Trigger) {
				// Parse cannot see the config: "fast" is the request's first
				// word until TakePipeline finds it configured.
				tr.Command, tr.Workflow, tr.Intent, tr.Pipeline, tr.Request = Run, "issue-1", fixtureTitle+"\n\n"+fixtureBody, "from-input", "fast"
			})),
		},
		{
			name: "/optr choose 2 looks good", event: "issue_comment", payload: fixture("issue_comment.created.optr-choose.json"),
			want: commentTrigger(with(issueTrigger("issue_comment"), func(tr *Trigger) {
				tr.Command, tr.Workflow, tr.Choice, tr.Note = Choose, "issue-1", 2, "looks good"
			})),
		},
		{
			name: "/optr choose x", event: "issue_comment", payload: comment("/optr choose x"),
			want: commentTrigger(with(issueTrigger("issue_comment"), func(tr *Trigger) {
				tr.Command, tr.Reason = Skip, `/optr choose: "x" is not an option number`
				tr.Reply = "`/optr choose` needs the number of an option, a positive whole number such as `/optr choose 1`; a note may follow it."
			})),
		},
		{
			name: "/optr abort", event: "issue_comment", payload: comment("/optr abort"),
			want: commentTrigger(with(issueTrigger("issue_comment"), func(tr *Trigger) {
				tr.Command, tr.Workflow = Abort, "issue-1"
			})),
		},
		{
			name: "/optr frobnicate", event: "issue_comment", payload: comment("/optr frobnicate now"),
			want: commentTrigger(with(issueTrigger("issue_comment"), func(tr *Trigger) {
				tr.Command, tr.Reason = Skip, "unknown command /optr frobnicate; the commands are run, choose and abort"
				tr.Reply = "I do not know that command. " + usage
			})),
		},
		{
			// An iteration: the workflow, intent and constraints come from
			// the pull request optr opened, which the caller reads.
			name: "/optr run on a pull request", event: "issue_comment",
			payload: mutated("issue_comment.created.on-pull-request.json", func(t *testing.T) func(map[string]any) {
				return setComment(t, "/optr run\nalso handle the empty input")
			}),
			want: commentTrigger(with(issueTrigger("issue_comment"), func(tr *Trigger) {
				tr.Command, tr.PullRequest, tr.Iteration, tr.Request = Run, true, true, "also handle the empty input"
			})),
		},
		{
			name: "/optr run in a review comment", event: "pull_request_review_comment",
			payload: mutated("pull_request_review_comment.created.json", func(t *testing.T) func(map[string]any) {
				return setComment(t, "/optr run fast\nname the variable")
			}),
			want: Trigger{
				EventName: "pull_request_review_comment", Command: Run, Request: "fast\nname the variable", Issue: 2, PullRequest: true, Iteration: true,
				CommentID: 284312630, CommentKind: CommentReview, Sender: "Codertocat", SenderType: "User", Title: "Update the README with new information.",
				Body: "This is a pretty simple change that we need to pull into master.",
			},
		},
		{
			name: "/optr choose in a review", event: "pull_request_review",
			payload: mutated("pull_request_review.submitted.json", func(t *testing.T) func(map[string]any) {
				return func(m map[string]any) { obj(t, m, "review")["body"] = "/optr choose 2 go ahead" }
			}),
			want: Trigger{
				EventName: "pull_request_review", Command: Choose, Choice: 2, Note: "go ahead", Issue: 2, PullRequest: true,
				Workflow: "issue-2", CommentID: 237895671, CommentKind: CommentReviewBody, Sender: "Codertocat", SenderType: "User",
				Title: "Update the README with new information.", Body: "This is a pretty simple change that we need to pull into master.",
			},
		},
		{
			name: "a review without a command", event: "pull_request_review", payload: fixture("pull_request_review.submitted.json"),
			want: Trigger{
				EventName: "pull_request_review", Command: Skip, Reason: "the review is not an /optr command", Issue: 2, PullRequest: true,
				CommentID: 237895671, CommentKind: CommentReviewBody, Sender: "Codertocat", SenderType: "User",
				Title: "Update the README with new information.", Body: "This is a pretty simple change that we need to pull into master.",
			},
		},
		{
			name: "an edited review comment", event: "pull_request_review_comment",
			payload: mutated("pull_request_review_comment.created.json", func(t *testing.T) func(map[string]any) {
				return func(m map[string]any) { m["action"] = "edited"; obj(t, m, "comment")["body"] = "/optr run" }
			}),
			want: Trigger{
				EventName: "pull_request_review_comment", Command: Skip, Reason: "pull_request_review_comment.edited: optr reads new review comments only",
				Issue: 2, PullRequest: true, CommentID: 284312630, CommentKind: CommentReview, Sender: "Codertocat", SenderType: "User",
				Title: "Update the README with new information.", Body: "This is a pretty simple change that we need to pull into master.",
			},
		},
		{
			name: "edited comment", event: "issue_comment",
			payload: mutated("issue_comment.created.optr-run.json", func(*testing.T) func(map[string]any) {
				return func(m map[string]any) { m["action"] = "edited" }
			}),
			want: commentTrigger(with(issueTrigger("issue_comment"), func(tr *Trigger) {
				tr.Command, tr.Reason = Skip, "issue_comment.edited: optr reads new comments only"
			})),
		},
		{
			name: "bot sender is parsed and flagged", event: "issue_comment",
			payload: mutated("issue_comment.created.optr-run.json", func(t *testing.T) func(map[string]any) {
				return func(m map[string]any) {
					s := obj(t, m, "sender")
					s["login"], s["type"] = "github-actions[bot]", "Bot"
				}
			}),
			want: commentTrigger(with(issueTrigger("issue_comment"), func(tr *Trigger) {
				tr.Sender, tr.SenderType = "github-actions[bot]", "Bot"
				tr.Command, tr.Workflow, tr.Intent = Run, "issue-1", fixtureTitle+"\n\n"+fixtureBody
			})),
		},
		{
			name: "dispatch with inputs in the event", event: "workflow_dispatch", payload: fixture("workflow_dispatch.optr.json"),
			want: Trigger{
				EventName: "workflow_dispatch", Sender: "Codertocat", SenderType: "User", Command: Run,
				Workflow: "docs-refresh", Intent: "Refresh the README badges.", Constraints: []string{"no-todo", "max-length"},
			},
		},
		{
			name: "dispatch, with: inputs win over the event's", event: "workflow_dispatch", payload: fixture("workflow_dispatch.optr.json"),
			inputs: func(in *Inputs) {
				in.Workflow, in.Intent, in.Constraints, in.Pipeline = "release", "Cut a release.", "json", "careful"
			},
			want: Trigger{
				EventName: "workflow_dispatch", Sender: "Codertocat", SenderType: "User", Command: Run,
				Workflow: "release", Intent: "Cut a release.", Constraints: []string{"json"}, Pipeline: "careful",
			},
		},
		{
			name: "dispatch, with: intent only", event: "workflow_dispatch", payload: fixture("workflow_dispatch.json"),
			inputs: func(in *Inputs) { in.Workflow, in.Intent = "hello", "Greet Mona." },
			want: Trigger{
				EventName: "workflow_dispatch", Sender: "Codertocat", SenderType: "User", Command: Run,
				Workflow: "hello", Intent: "Greet Mona.",
			},
		},
		{
			name: "command run forces a run on another label", event: "issues", payload: fixture("issues.labeled.json"),
			inputs: func(in *Inputs) { in.Command = CommandRun },
			want: with(issueTrigger("issues"), func(tr *Trigger) {
				tr.Command, tr.Workflow, tr.Intent = Run, "issue-1", fixtureTitle+"\n\n"+fixtureBody
			}),
		},
		{
			name: "command run on a plain comment", event: "issue_comment", payload: fixture("issue_comment.created.json"),
			inputs: func(in *Inputs) { in.Command = CommandRun },
			want: commentTrigger(with(issueTrigger("issue_comment"), func(tr *Trigger) {
				tr.Command, tr.Workflow, tr.Intent = Run, "issue-1", fixtureTitle+"\n\n"+fixtureBody
			})),
		},
		{
			name: "command run on a push, everything from inputs", event: "push", payload: fixture("workflow_dispatch.json"),
			inputs: func(in *Inputs) { in.Command, in.Workflow, in.Intent = CommandRun, "nightly", "Tidy up." },
			want:   Trigger{EventName: "push", Sender: "Codertocat", SenderType: "User", Command: Run, Workflow: "nightly", Intent: "Tidy up."},
		},
		{
			name: "command abort on a plain comment", event: "issue_comment", payload: fixture("issue_comment.created.json"),
			inputs: func(in *Inputs) { in.Command = CommandAbort },
			want: commentTrigger(with(issueTrigger("issue_comment"), func(tr *Trigger) {
				tr.Command, tr.Workflow = Abort, "issue-1"
			})),
		},
		{
			name: "another event skips", event: "push", payload: fixture("workflow_dispatch.json"),
			want: Trigger{
				EventName: "push", Sender: "Codertocat", SenderType: "User", Command: Skip,
				Reason: `the push event does not start optr: it answers issues, issue_comment, pull_request_review_comment, pull_request_review, pull_request (closed) and workflow_dispatch`,
			},
		},
		{
			// The caller checks that optr opened it and reads what
			// became of it through the API.
			name: "a pull request closed", event: "pull_request", payload: fixture("pull_request.closed.json"),
			want: Trigger{
				EventName: "pull_request", Command: Outcome, Issue: 2, PullRequest: true, Sender: "Codertocat", SenderType: "User",
				Title: "Update the README with new information.", Body: "This is a pretty simple change that we need to pull into master.",
			},
		},
		{
			name: "a pull request merged by a bot", event: "pull_request",
			payload: mutated("pull_request.closed.json", func(t *testing.T) func(map[string]any) {
				return func(m map[string]any) {
					obj(t, m, "pull_request")["merged"] = true
					s := obj(t, m, "sender")
					s["login"], s["type"] = "mergify[bot]", "Bot"
				}
			}),
			want: Trigger{
				EventName: "pull_request", Command: Outcome, Merged: true, Issue: 2, PullRequest: true, Sender: "mergify[bot]", SenderType: "Bot",
				Title: "Update the README with new information.", Body: "This is a pretty simple change that we need to pull into master.",
			},
		},
		{
			name: "a pull request opened", event: "pull_request",
			payload: mutated("pull_request.closed.json", func(*testing.T) func(map[string]any) {
				return func(m map[string]any) { m["action"] = "opened" }
			}),
			want: Trigger{
				EventName: "pull_request", Command: Skip, Reason: "pull_request.opened: optr reads pull_request events only when one closes, to record its outcome",
				Issue: 2, PullRequest: true, Sender: "Codertocat", SenderType: "User",
				Title: "Update the README with new information.", Body: "This is a pretty simple change that we need to pull into master.",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := defaultInputs()
			if tt.inputs != nil {
				tt.inputs(&in)
			}
			got, err := Parse(Env{EventName: tt.event, EventPath: tt.payload(t)}, in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
			if got.Command == Skip && (got.Reason == "" || strings.ContainsAny(got.Reason, "\r\n")) {
				t.Errorf("a skip needs a one-line reason, got %q", got.Reason)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	badJSON := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(badJSON, []byte(`{"action": "labeled", "issue": `), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		env     Env
		inputs  func(*Inputs)
		wantErr string
	}{
		{"no event name", Env{EventPath: actiontest.PayloadFile(t, "issues.labeled.json", nil)}, nil, "GITHUB_EVENT_NAME is not set"},
		{"no event path", Env{EventName: "issues"}, nil, "GITHUB_EVENT_PATH is not set"},
		{"missing payload file", Env{EventName: "issues", EventPath: filepath.Join(t.TempDir(), "nope.json")}, nil, "read the event payload"},
		{"truncated payload", Env{EventName: "issues", EventPath: badJSON}, nil, "decode the issues event payload"},
		{"issue payload for a comment event", Env{EventName: "issue_comment", EventPath: actiontest.PayloadFile(t, "issues.labeled.optr.json", nil)}, nil, "no issue or no comment"},
		{
			"dispatch without workflow", Env{EventName: "workflow_dispatch", EventPath: actiontest.PayloadFile(t, "workflow_dispatch.json", nil)}, nil,
			"gives no workflow name: set the workflow input",
		},
		{
			"dispatch without intent", Env{EventName: "workflow_dispatch", EventPath: actiontest.PayloadFile(t, "workflow_dispatch.json", nil)},
			func(in *Inputs) { in.Workflow = "hello" },
			"gives no intent: set the intent input",
		},
		{
			"dispatch workflow escaping the datalake", Env{EventName: "workflow_dispatch", EventPath: actiontest.PayloadFile(t, "workflow_dispatch.optr.json", nil)},
			func(in *Inputs) { in.Workflow = "../x" },
			`the workflow input: workflow "../x" is not allowed`,
		},
		{
			"issue run with a bad workflow input", Env{EventName: "issues", EventPath: actiontest.PayloadFile(t, "issues.labeled.optr.json", nil)},
			func(in *Inputs) { in.Workflow = ".." },
			`workflow ".." would leave the datalake`,
		},
		{
			"choose with a bad workflow input", Env{EventName: "issue_comment", EventPath: actiontest.PayloadFile(t, "issue_comment.created.optr-choose.json", nil)},
			func(in *Inputs) { in.Workflow = "/etc" },
			`the workflow input: workflow "/etc" is not allowed`,
		},
		{
			"abort without an issue", Env{EventName: "workflow_dispatch", EventPath: actiontest.PayloadFile(t, "workflow_dispatch.optr.json", nil)},
			func(in *Inputs) { in.Command = CommandAbort },
			"has no issue to abort a run on",
		},
		{
			"unknown command input", Env{EventName: "issues", EventPath: actiontest.PayloadFile(t, "issues.labeled.json", nil)},
			func(in *Inputs) { in.Command = "dance" },
			`input command is "dance"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := defaultInputs()
			if tt.inputs != nil {
				tt.inputs(&in)
			}
			got, err := Parse(tt.env, in)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Parse = %+v, %v; want an error containing %q", got, err, tt.wantErr)
			}
		})
	}
}

// TestParseEveryFixture parses every payload fixture and checks the
// invariants that hold whatever the event: no error for an event of its
// own kind, and a one-line reason on every skip.
func TestParseEveryFixture(t *testing.T) {
	t.Parallel()
	names := actiontest.Payloads()
	if len(names) == 0 {
		t.Fatal("no payload fixtures")
	}
	for _, f := range names {
		event, _, _ := strings.Cut(f, ".")
		in := defaultInputs()
		if event == EventWorkflowDispatch {
			in.Workflow, in.Intent = "w", "i"
		}
		got, err := Parse(Env{EventName: event, EventPath: actiontest.PayloadFile(t, f, nil)}, in)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if got.Sender == "" || got.SenderType == "" {
			t.Errorf("%s: sender %q of type %q", f, got.Sender, got.SenderType)
		}
		if got.Command == Skip && (got.Reason == "" || strings.ContainsAny(got.Reason, "\r\n")) {
			t.Errorf("%s: skip reason %q", f, got.Reason)
		}
		if got.Command != Skip && got.Command != Outcome && got.Workflow == "" {
			t.Errorf("%s: %s without a workflow", f, got.Command)
		}
	}
}

func TestIsBot(t *testing.T) {
	t.Parallel()
	for typ, want := range map[string]bool{"Bot": true, "bot": true, "User": false, "Organization": false, "": false} {
		if got := (Trigger{SenderType: typ}).IsBot(); got != want {
			t.Errorf("IsBot(%q) = %v, want %v", typ, got, want)
		}
	}
}

// An event optr does not handle is skipped even when its payload does not
// decode: nothing in it is needed.
func TestParseSkipsUnhandledEventWithAnyPayload(t *testing.T) {
	t.Parallel()
	for _, payload := range []string{"", "not json", `{"ref":"refs/heads/main"}`} {
		path := filepath.Join(t.TempDir(), "event.json")
		if err := os.WriteFile(path, []byte(payload), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Parse(Env{EventName: "push", EventPath: path}, Inputs{Command: CommandAuto, TriggerLabel: "optr"})
		if err != nil || got.Command != Skip || got.Reason == "" {
			t.Errorf("push with payload %q: %+v, %v; want a skip with a reason", payload, got, err)
		}
	}
}

// TestDispatchWithoutInputsTakesTheGitHubWorkflowName checks issue 22
// item 14: GitHub's own example workflow_dispatch payload has no inputs,
// and exited 2 "no workflow name". The run is filed under a slug of
// GITHUB_WORKFLOW, and the trigger says so.
func TestDispatchWithoutInputsTakesTheGitHubWorkflowName(t *testing.T) {
	t.Parallel()
	env := Env{EventName: "workflow_dispatch", EventPath: actiontest.PayloadFile(t, "workflow_dispatch.json", nil), WorkflowName: "Nightly research (optr)"}
	got, err := Parse(env, Inputs{Intent: "Summarise the week."})
	if err != nil {
		t.Fatal(err)
	}
	if got.Workflow != "nightly-research-optr" || !strings.Contains(got.Notice, `"nightly-research-optr"`) || !strings.Contains(got.Notice, "set the workflow input") {
		t.Errorf("workflow %q, notice %q", got.Workflow, got.Notice)
	}
	if got, err := Parse(env, Inputs{Intent: "x", Workflow: "chosen"}); err != nil || got.Workflow != "chosen" || got.Notice != "" {
		t.Errorf("a workflow input still wins: %q, %q, %v", got.Workflow, got.Notice, err)
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"optr":                          "optr",
		"Nightly research (optr)":       "nightly-research-optr",
		".github/workflows/optr.yml":    "github-workflows-optr.yml",
		"  --Ünïcode ☃ name__ ":         "n-code-name__",
		"...":                           "",
		strings.Repeat("abcdefghij", 8): strings.Repeat("abcdefghij", 6) + "abcd",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
