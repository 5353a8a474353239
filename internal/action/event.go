package action

import (
	"encoding/json"
	"fmt"

	"github.com/google/go-github/v60/github"
)

// Event names optr acts on.
const (
	EventIssues                   = "issues"
	EventIssueComment             = "issue_comment"
	EventWorkflowDispatch         = "workflow_dispatch"
	EventPullRequestReviewComment = "pull_request_review_comment"
	EventPullRequestReview        = "pull_request_review"
	EventPullRequest              = "pull_request"
)

// event is the part of a webhook payload Parse looks at, whatever its type.
type event struct {
	name   string
	action string
	issue  *github.Issue
	// pull is the pull request of a review or review comment event.
	pull  *github.PullRequest
	label string // issues.labeled: the label just added
	// comment is the text that may carry an /optr command: an issue
	// comment, a review comment or a review's body.
	comment *comment
	sender  *github.User
	// inputs are a workflow_dispatch event's inputs, as strings.
	inputs map[string]string
}

// comment is the command-carrying text of an event.
type comment struct {
	kind CommentKind
	id   int64
	body string
}

// decodeEvent decodes payload with the go-github type for name. Payloads of
// other events are read for their sender and issue only.
func decodeEvent(name string, payload []byte) (event, error) {
	ev := event{name: name}
	var err error
	switch name {
	case EventIssues:
		var e github.IssuesEvent
		err = json.Unmarshal(payload, &e)
		ev.action, ev.issue, ev.sender = e.GetAction(), e.Issue, e.Sender
		ev.label = e.GetLabel().GetName()
		if err == nil && ev.issue == nil {
			err = fmt.Errorf("the payload has no issue")
		}
	case EventIssueComment:
		var e github.IssueCommentEvent
		err = json.Unmarshal(payload, &e)
		ev.action, ev.issue, ev.sender = e.GetAction(), e.Issue, e.Sender
		if e.Comment != nil {
			ev.comment = &comment{kind: CommentIssue, id: e.Comment.GetID(), body: e.Comment.GetBody()}
		}
		if err == nil && (ev.issue == nil || ev.comment == nil) {
			err = fmt.Errorf("the payload has no issue or no comment")
		}
	case EventPullRequestReviewComment:
		var e github.PullRequestReviewCommentEvent
		err = json.Unmarshal(payload, &e)
		ev.action, ev.pull, ev.sender = e.GetAction(), e.PullRequest, e.Sender
		if e.Comment != nil {
			ev.comment = &comment{kind: CommentReview, id: e.Comment.GetID(), body: e.Comment.GetBody()}
		}
		if err == nil && (ev.pull == nil || ev.comment == nil) {
			err = fmt.Errorf("the payload has no pull request or no comment")
		}
	case EventPullRequestReview:
		var e github.PullRequestReviewEvent
		err = json.Unmarshal(payload, &e)
		ev.action, ev.pull, ev.sender = e.GetAction(), e.PullRequest, e.Sender
		if e.Review != nil {
			ev.comment = &comment{kind: CommentReviewBody, id: e.Review.GetID(), body: e.Review.GetBody()}
		}
		if err == nil && (ev.pull == nil || ev.comment == nil) {
			err = fmt.Errorf("the payload has no pull request or no review")
		}
	case EventPullRequest:
		var e github.PullRequestEvent
		err = json.Unmarshal(payload, &e)
		ev.action, ev.pull, ev.sender = e.GetAction(), e.PullRequest, e.Sender
		if err == nil && ev.pull == nil {
			err = fmt.Errorf("the payload has no pull request")
		}
	case EventWorkflowDispatch:
		var e github.WorkflowDispatchEvent
		err = json.Unmarshal(payload, &e)
		ev.sender = e.Sender
		if err == nil {
			ev.inputs, err = dispatchInputs(e.Inputs)
		}
	default:
		// Events optr does not handle are skipped (or, with command: run,
		// run on the inputs alone); their payload only lends optional
		// fields, so one that does not decode is read as empty.
		var e otherEvent
		if json.Unmarshal(payload, &e) == nil {
			ev.action, ev.issue, ev.sender = e.Action, e.Issue, e.Sender
		}
	}
	if err != nil {
		return event{}, fmt.Errorf("decode the %s event payload: %w", name, err)
	}
	return ev, nil
}

// otherEvent is the common part of the payloads of other events.
type otherEvent struct {
	Action string        `json:"action"`
	Issue  *github.Issue `json:"issue"`
	Sender *github.User  `json:"sender"`
}

// dispatchInputs reads the inputs object; the runner sends strings, but a
// boolean or number input is turned into its text too.
func dispatchInputs(raw json.RawMessage) (map[string]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("inputs: %w", err)
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case nil:
		case string:
			out[k] = v
		default:
			b, _ := json.Marshal(v)
			out[k] = string(b)
		}
	}
	return out, nil
}
