package action

import "strings"

// Command is what a trigger asks optr to do.
type Command string

// The commands a trigger can carry.
const (
	// Run starts a run.
	Run Command = "run"
	// Choose answers the open checkpoint of the issue (/optr choose N).
	Choose Command = "choose"
	// Abort stops the run waiting on the issue (/optr abort).
	Abort Command = "abort"
	// Skip does nothing: the event is not for optr (status=skipped).
	Skip Command = "skip"
	// Outcome records what became of the pull request the event is about
	// (pull_request.closed, architecture §4.19), if optr opened it: no agent
	// runs, nothing is posted.
	Outcome Command = "outcome"
)

// CommentKind is the kind of text an /optr command came in.
type CommentKind string

// The kinds of comment a command comes in.
const (
	// CommentIssue is a comment in an issue's or a pull request's
	// conversation (issue_comment).
	CommentIssue CommentKind = "comment"
	// CommentReview is a comment on a line of a pull request's diff
	// (pull_request_review_comment).
	CommentReview CommentKind = "review comment"
	// CommentReviewBody is the body of a submitted review
	// (pull_request_review); it takes no reactions.
	CommentReviewBody CommentKind = "review"
)

// Trigger is what an event asks of optr, decided by Parse.
//
// Title, Body, Intent, Note and Reason come from users: they are untrusted
// text and must be fenced before they reach a log or a comment.
type Trigger struct {
	// Command is what to do.
	Command Command
	// Reason says in one line why the event is skipped (Command == Skip).
	Reason string
	// Reply is set when a /optr comment was malformed: a short Markdown
	// answer (usage) the caller posts on the issue — after it has checked
	// that the sender may act, and never to a bot. The Command is Skip.
	Reply string

	// EventName is GITHUB_EVENT_NAME.
	EventName string
	// Issue is the issue or pull request number, 0 when the event has none
	// (workflow_dispatch).
	Issue int
	// PullRequest is true when Issue is a pull request.
	PullRequest bool
	// Merged says, for Outcome, whether the event reports the pull
	// request merged; the caller reads what it is now through the API.
	Merged bool
	// Iteration is true for /optr run on a pull request (architecture §4.16):
	// the caller resolves the workflow, intent and constraints from the
	// pull request optr opened, which Parse cannot see.
	Iteration bool
	// CommentID is the id of the triggering comment, else 0; CommentKind
	// says which kind of comment it is.
	CommentID   int64
	CommentKind CommentKind
	// Sender is the login of the user whose action triggered the event.
	Sender string
	// SenderType is the sender's account type: "User", "Bot" or
	// "Organization". Callers deny a Bot silently.
	SenderType string

	// Title and Body are the issue's, as GitHub shows them: without HTML
	// comments and invisible characters (see StripHidden).
	Title string
	Body  string
	// Hidden is what was removed from the issue's title and body. When
	// Hidden.Any(), the intent file says so with Hidden.Note().
	Hidden Hidden
	// Intent is the task for the agents.
	Intent string
	// Constraints are the constraint names the intent asks for: valid,
	// lower-cased, without duplicates.
	Constraints []string
	// RejectedConstraints are the items that are not constraint names;
	// the caller reports them (a warning, a line in the comment).
	RejectedConstraints []string
	// Workflow is the validated workflow slug (Run, Choose, Abort).
	Workflow string
	// Notice says something the user should know about how the event was
	// read (a workflow name taken from GITHUB_WORKFLOW); the caller logs it.
	Notice string
	// Pipeline is the pipeline to run, empty for the default.
	Pipeline string
	// Request is the text of an `/optr run` comment after "run", on its
	// line and below (architecture §4.16): what the person who started
	// the run asked for. Its first word names a pipeline only when the
	// config has one of that name (TakePipeline). Untrusted text.
	Request string
	// Choice is N of /optr choose N (1-based).
	Choice int
	// Note is the free text after /optr choose N or /optr abort.
	Note string
}

// TakePipeline reads the first word of Request as the pipeline to run
// when configured says a pipeline of that name is configured: Pipeline
// becomes that name and Request what follows it. Any other word is the
// request's own ("/optr run please also handle empty input").
func (t *Trigger) TakePipeline(configured func(name string) bool) {
	word, rest := cutWord(t.Request)
	if word == "" || !configured(word) {
		return
	}
	t.Pipeline, t.Request = word, strings.TrimSpace(rest)
}

// IsBot reports whether the sender is a bot account (SenderType "Bot"),
// which optr never answers.
func (t Trigger) IsBot() bool {
	return strings.EqualFold(t.SenderType, "Bot")
}
