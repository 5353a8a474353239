package action

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/markdown"
)

// Parse reads the event the runner hands the action (GITHUB_EVENT_NAME,
// GITHUB_EVENT_PATH) and decides what optr does about it.
//
// With the command input auto (the default):
//   - issues.labeled with the trigger label, and issues.opened already
//     carrying it, run; other issues events skip;
//   - issue_comment.created whose body starts with /optr runs
//     (/optr run [pipeline] [request]), answers a checkpoint (/optr choose N [note])
//     or aborts (/optr abort [note]); a malformed /optr command skips with a
//     Reply for the commenter; any other comment skips;
//   - on a pull request, the same commands come as issue_comment.created,
//     pull_request_review_comment.created or pull_request_review.submitted
//     (the review's body); /optr run there is an Iteration, whose workflow,
//     intent and constraints the caller resolves from the pull request;
//   - workflow_dispatch runs;
//   - pull_request.closed records the pull request's outcome (Outcome):
//     the caller checks that optr opened it and reads what became of it;
//     other pull_request events skip;
//   - every other event skips.
//
// The command input forces the action: run runs on any event, taking what
// the event does not say from the inputs; abort aborts the run waiting on
// the event's issue, and is an error for an event without one.
//
// For a run, each of workflow, intent and constraints comes from the
// action's inputs (with:) when set, else from the event: a
// workflow_dispatch event's inputs, or the issue (workflow issue-<number>;
// intent the title, a blank line and the body; constraints the body's
// "### Constraints" section, added to the constraints input). The issue's
// title and body are read as GitHub shows them: HTML comments and invisible
// characters are removed (see StripHidden), and Event.Hidden says what
// was. The pipeline
// is the one named by /optr run, else the pipeline input.
//
// Bot senders are parsed like anyone else; Event.IsBot tells the caller
// to stay silent. Every error Parse returns means the run cannot start as
// configured (no event, an unreadable payload, no intent, an invalid
// workflow name): the caller exits 2.
func Parse(env Env, in Inputs) (Trigger, error) {
	if env.EventName == "" {
		return Trigger{}, errors.New("GITHUB_EVENT_NAME is not set: optr action runs inside GitHub Actions; use optr run elsewhere")
	}
	if env.EventPath == "" {
		return Trigger{}, errors.New("GITHUB_EVENT_PATH is not set: optr action needs the event payload the runner provides")
	}
	payload, err := os.ReadFile(env.EventPath)
	if err != nil {
		return Trigger{}, fmt.Errorf("read the event payload: %w", err)
	}
	return parseEvent(env.EventName, payload, in, env.WorkflowName)
}

// parseEvent reads the event's payload; ghWorkflow is GITHUB_WORKFLOW,
// the workflow name's last resort.
func parseEvent(name string, payload []byte, in Inputs, ghWorkflow string) (Trigger, error) {
	ev, err := decodeEvent(name, payload)
	if err != nil {
		return Trigger{}, err
	}
	t := Trigger{
		EventName:  name,
		Sender:     ev.sender.GetLogin(),
		SenderType: ev.sender.GetType(),
	}
	if ev.issue != nil {
		t.Issue = ev.issue.GetNumber()
		t.PullRequest = ev.issue.IsPullRequest()
		// Agents see what people see: hidden text never reaches them.
		var th, bh Hidden
		t.Title, th = StripHidden(ev.issue.GetTitle())
		t.Body, bh = StripHidden(ev.issue.GetBody())
		t.Hidden = Hidden{Comments: th.Comments + bh.Comments, Invisible: th.Invisible + bh.Invisible}
	}
	if ev.pull != nil { // a review event: the pull request is the issue
		t.Issue, t.PullRequest = ev.pull.GetNumber(), true
		var th, bh Hidden
		t.Title, th = StripHidden(ev.pull.GetTitle())
		t.Body, bh = StripHidden(ev.pull.GetBody())
		t.Hidden = Hidden{Comments: th.Comments + bh.Comments, Invisible: th.Invisible + bh.Invisible}
	}
	if ev.comment != nil {
		t.CommentID, t.CommentKind = ev.comment.id, ev.comment.kind
	}

	switch in.Command {
	case CommandRun:
		t.Command = Run
	case CommandAbort:
		if t.Issue == 0 {
			return Trigger{}, fmt.Errorf("input command is abort, but the %s event has no issue to abort a run on", name)
		}
		t.Command = Abort
	case CommandAuto, CommandPlan, "":
		decide(&t, ev, in)
	default:
		return Trigger{}, fmt.Errorf("input command is %q: use one of %s", in.Command, strings.Join(commandValues, ", "))
	}

	switch {
	case t.Iteration:
		// The caller reads the pull request optr opened for the rest.
		if t.Pipeline == "" {
			t.Pipeline = in.Pipeline
		}
	case t.Command == Run:
		err = resolveRun(&t, ev, in, ghWorkflow)
	case t.Command == Choose, t.Command == Abort:
		t.Workflow, t.Notice, err = resolveWorkflow(t, ev, in, ghWorkflow)
	}
	if err != nil {
		return Trigger{}, err
	}
	return t, nil
}

// decide applies the auto rules: it sets Action, and Reason and Reply for
// skips, and what a comment command carries.
func decide(t *Trigger, ev event, in Inputs) {
	label := in.TriggerLabel
	if label == "" {
		label = "optr"
	}
	skip := func(format string, args ...any) {
		t.Command, t.Reason = Skip, fmt.Sprintf(format, args...)
	}
	switch ev.name {
	case EventIssues:
		switch ev.action {
		case "labeled":
			if !strings.EqualFold(ev.label, label) {
				skip("issues.labeled: the label %q is not the trigger label %q", markdown.OneLine(ev.label, 50), label)
				return
			}
			t.Command = Run
		case "opened":
			if !hasLabel(ev, label) {
				skip("issues.opened: the issue does not carry the trigger label %q", label)
				return
			}
			t.Command = Run
		default:
			skip("issues.%s does not start optr: label the issue %q or comment /optr run", markdown.OneLine(ev.action, 30), label)
		}
	case EventIssueComment, EventPullRequestReviewComment, EventPullRequestReview:
		want := "created"
		if ev.name == EventPullRequestReview {
			want = "submitted"
		}
		if ev.action != want {
			skip("%s.%s: optr reads new %ss only", ev.name, markdown.OneLine(ev.action, 30), ev.comment.kind)
			return
		}
		s, ok := parseSlash(ev.comment.body)
		if !ok {
			skip("the %s is not an /optr command", ev.comment.kind)
			return
		}
		t.Command, t.Request, t.Choice, t.Note = s.action, s.request, s.choice, s.note
		t.Reason, t.Reply = s.reason, s.reply
		t.Iteration = t.Command == Run && t.PullRequest
	case EventWorkflowDispatch:
		t.Command = Run
	case EventPullRequest:
		if ev.action != "closed" {
			skip("pull_request.%s: optr reads pull_request events only when one closes, to record its outcome", markdown.OneLine(ev.action, 30))
			return
		}
		t.Command, t.Merged = Outcome, ev.pull.GetMerged()
	default:
		skip("the %s event does not start optr: it answers issues, issue_comment, pull_request_review_comment, pull_request_review, pull_request (closed) and workflow_dispatch", markdown.OneLine(ev.name, 40))
	}
}

func hasLabel(ev event, name string) bool {
	for _, l := range ev.issue.Labels {
		if strings.EqualFold(l.GetName(), name) {
			return true
		}
	}
	return false
}

// resolveRun fills Workflow, Intent, Constraints and Pipeline of a run.
func resolveRun(t *Trigger, ev event, in Inputs, ghWorkflow string) error {
	wf, notice, err := resolveWorkflow(*t, ev, in, ghWorkflow)
	if err != nil {
		return err
	}
	t.Workflow, t.Notice = wf, notice

	switch {
	case in.Intent != "":
		t.Intent = in.Intent
	case strings.TrimSpace(ev.inputs["intent"]) != "":
		t.Intent = strings.TrimSpace(ev.inputs["intent"])
	case ev.issue != nil:
		t.Intent = issueIntent(t.Title, t.Body)
	}
	if strings.TrimSpace(t.Intent) == "" {
		return fmt.Errorf("the %s event gives no intent: set the intent input (with: intent: …) or the workflow_dispatch input intent", ev.name)
	}

	list := in.Constraints
	if list == "" {
		list = ev.inputs["constraints"]
	}
	t.Constraints, t.RejectedConstraints = SplitConstraints(list)
	if ev.issue != nil {
		names, rejected := ConstraintsSection(t.Body)
		for _, n := range names {
			t.Constraints = appendNew(t.Constraints, n)
		}
		for _, r := range rejected {
			t.RejectedConstraints = appendNew(t.RejectedConstraints, r)
		}
	}

	if t.Pipeline == "" {
		t.Pipeline = in.Pipeline
	}
	return nil
}

// resolveWorkflow picks the workflow name: the workflow input, else the
// dispatch event's workflow input, else issue-<number>, else a slug of
// GITHUB_WORKFLOW (a dispatch without inputs: GitHub's own example
// payloads have none), said in notice; and validates it.
func resolveWorkflow(t Trigger, ev event, in Inputs, ghWorkflow string) (name, notice string, err error) {
	name, from := in.Workflow, "the workflow input"
	if name == "" {
		name, from = strings.TrimSpace(ev.inputs["workflow"]), "the workflow_dispatch input workflow"
	}
	if name == "" && t.Issue > 0 {
		name, from = fmt.Sprintf("issue-%d", t.Issue), "the issue number"
	}
	if name == "" {
		if name = Slug(ghWorkflow); name != "" {
			from = "GITHUB_WORKFLOW"
			notice = fmt.Sprintf("the %s event gives no workflow name, so the run is filed under %q, a slug of this GitHub workflow's name %q; set the workflow input (with: workflow: …) to choose one", ev.name, name, ghWorkflow)
		}
	}
	if name == "" {
		return "", "", fmt.Errorf("the %s event gives no workflow name: set the workflow input (with: workflow: …) or the workflow_dispatch input workflow", ev.name)
	}
	if err := datalake.ValidateWorkflow(name); err != nil {
		return "", "", fmt.Errorf("%s: %w", from, err)
	}
	return name, notice, nil
}

// Slug turns a name into a workflow slug ([a-z0-9._-], at most 64
// characters, no leading dot or dash): lower case, every other run of
// characters one '-'. "" when nothing is left.
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
	}
	s := strings.TrimLeft(b.String(), ".-_")
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], ".-_")
	}
	return s
}

// issueIntent is the intent an issue carries: its title, a blank line and
// its body (just the title when the body is empty).
func issueIntent(title, body string) string {
	title, body = strings.TrimSpace(title), strings.TrimSpace(normalizeNewlines(body))
	if body == "" {
		return title
	}
	return title + "\n\n" + body
}
