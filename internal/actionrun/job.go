package actionrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/optr-dev/optr/internal/action"
	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/preflight"
	"github.com/optr-dev/optr/internal/status"
)

// Job is one `optr action` invocation with its connections to the world.
type Job struct {
	// Getenv reads the runner's environment (GITHUB_*, INPUT_*, keys).
	Getenv func(string) string
	// Environ is the base environment of command agents and checks.
	Environ []string
	// Stdout is the job log (workflow commands are read from it).
	Stdout io.Writer
	// HTTPClient is used for GitHub and the LLM providers (nil: default).
	HTTPClient *http.Client
	// Now is the clock.
	Now func() time.Time
	// Sleep waits between GitHub retries (nil: a real timer).
	Sleep func(ctx context.Context, d time.Duration) error

	log  *action.Log
	env  action.Env
	in   action.Inputs
	outs *action.Outputs
	gh   *github.Client
	// pr is the client on the pr-token, made when first needed.
	pr *github.Client
	// checkpoint is the ledger checkpoint made for head (checkpointOf).
	checkpoint struct{ head, text string }
	// committed is the active ledger segment as the last commit-back left
	// it on the ledger branch.
	committed []byte
	// ledgers are the ledger branch's stores, one per branch and path
	// (ledgerStore).
	ledgers map[string]*branchLedger
}

// UsageError is a run refused before any agent started: bad input to the
// Action (inputs, event, config), no usable agent, a spent budget. Exit 2.
type UsageError struct{ Err error }

// Error implements error.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *UsageError) Unwrap() error { return e.Err }

// FailedError is a run that failed (exit 1); the log already says why.
type FailedError struct{ Err error }

// Error implements error.
func (e *FailedError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *FailedError) Unwrap() error { return e.Err }

// Run carries out the job. A nil error is exit 0 (completed, paused or
// skipped); *UsageError is exit 2; anything else is exit 1.
func (j *Job) Run(ctx context.Context) error {
	if j.Now == nil {
		j.Now = time.Now
	}
	j.log = action.NewLog(j.Stdout, j.Getenv)
	j.log.MaskEnv() // before anything else is printed
	j.env = action.LoadEnv(j.Getenv)
	in, err := action.LoadInputs(j.Getenv)
	if err != nil {
		return &UsageError{Err: err}
	}
	j.in = in
	j.log.Mask(in.GitHubToken)
	j.log.Mask(in.PRToken)
	if j.outs, err = action.NewOutputs(j.env.OutputPath); err != nil {
		return fmt.Errorf("open GITHUB_OUTPUT: %w", err)
	}
	if _, err := preflight.Check(ctx, preflight.Input{Datalake: in.Datalake, Workspace: j.workspace()}); err != nil {
		j.log.Error(err.Error())
		j.setOutputs(outcome{status: status.Failed, runID: j.env.RunID(), message: err.Error()})
		return &UsageError{Err: err}
	}
	err = j.dispatch(ctx)
	if lerr := j.log.Err(); lerr != nil && err == nil {
		err = fmt.Errorf("write the job log: %w", lerr)
	}
	return err
}

func (j *Job) dispatch(ctx context.Context) error {
	switch j.in.Command { // a matrix job works from the plan, not the event
	case action.CommandTask:
		return j.task(ctx)
	case action.CommandGather:
		return j.gather(ctx)
	}
	trig, err := action.Parse(j.env, j.in)
	if err != nil {
		j.setOutputs(outcome{status: status.Failed, runID: j.env.RunID()})
		return &UsageError{Err: err}
	}
	if trig.Notice != "" {
		j.log.Notice(trig.Notice)
	}
	if trig.Command == action.Outcome { // a fact to record, whoever closed it
		return j.outcome(ctx, trig)
	}
	if trig.IsBot() {
		j.log.Infof("skipped: the event was sent by a bot (%s); optr never answers bots", trig.Sender)
		return j.skip("")
	}
	if trig.Command == action.Skip && trig.Reply == "" {
		j.log.Infof("skipped: %s", trig.Reason)
		return j.skip("")
	}
	if err := j.connect(ctx); err != nil {
		return err
	}
	if ok, err := j.authorise(ctx, trig); !ok {
		return err
	}
	if trig.Command == action.Skip { // a malformed /optr command from a writer
		j.log.Infof("skipped: %s", trig.Reason)
		if _, err := j.gh.UpsertComment(ctx, trig.Issue, comment.KindReply, j.env.RunID(), trig.Reply); err != nil {
			j.log.Warning("could not reply on the issue: " + err.Error())
		}
		return j.skip("")
	}
	j.react(ctx, trig)
	switch trig.Command {
	case action.Run:
		if j.in.Command == action.CommandPlan {
			if trig.Iteration {
				return j.reply(ctx, trig, "optr iterates on a pull request in one job, not over the matrix: run it with `command: auto` for pull request events.", nil)
			}
			return j.plan(ctx, trig)
		}
		return j.run(ctx, trig)
	case action.Choose, action.Abort:
		var it *iteration
		if trig.PullRequest { // the checkpoint is an iteration's, filed under the workflow of optr's branch
			var done bool
			var err error
			if it, done, err = j.pullOfTrigger(ctx, trig); done {
				return err
			}
			trig.Workflow = it.workflow
		}
		if trig.Command == action.Choose {
			return j.choose(ctx, trig, it)
		}
		return j.abort(ctx, trig, it)
	}
	return &UsageError{Err: fmt.Errorf("unknown action %q", trig.Command)}
}

func (j *Job) connect(ctx context.Context) error {
	gh, err := github.New(ctx, github.Options{
		APIURL: j.env.APIURL, Token: j.in.GitHubToken, Repository: j.env.Repository,
		HTTPClient: j.HTTPClient, Now: j.Now, Sleep: j.Sleep,
		DefaultBranch: github.DefaultBranchOfEvent(j.env.EventPath), // the payload names it: no request
	})
	if err != nil {
		return &UsageError{Err: fmt.Errorf("connect to GitHub: %w", err)}
	}
	j.gh = gh
	return nil
}

// authorise lets writers act. Bots were already turned away; a human
// without permission gets at most one short reply per issue.
func (j *Job) authorise(ctx context.Context, trig action.Trigger) (bool, error) {
	if trig.EventName == "workflow_dispatch" {
		return true, nil // dispatching a workflow already takes write access
	}
	a := j.gh.Authorize(ctx, trig.Sender, trig.SenderType)
	if a.Access == github.Allowed {
		return true, nil
	}
	j.log.Infof("skipped: %s may not trigger optr (%s)", trig.Sender, a.Reason)
	if trig.Issue == 0 || trig.Command == action.Skip {
		return false, j.skip("")
	}
	kind, body := "denied", fmt.Sprintf("Only people with write, maintain or admin permission on this repository can trigger optr; @%s cannot. A maintainer can label the issue `%s` or comment `/optr run`.",
		trig.Sender, j.in.TriggerLabel)
	if a.Access == github.Unchecked {
		kind, body = "unchecked", fmt.Sprintf("optr could not check @%s's permission on this repository (GitHub did not answer in time or refused the check), so it did not run. This is not a denial: re-run the workflow job to try again.", trig.Sender)
	}
	if _, err := j.gh.UpsertComment(ctx, trig.Issue, "notice", fmt.Sprintf("%s-%d", kind, trig.Issue), body); err != nil {
		j.log.Warning("could not reply on the issue: " + err.Error())
	}
	return false, j.skip("")
}

func (j *Job) react(ctx context.Context, trig action.Trigger) {
	var err error
	switch {
	case trig.Issue == 0 || trig.CommentKind == action.CommentReviewBody: // a review takes no reactions
		return
	case trig.CommentKind == action.CommentReview:
		err = j.gh.ReactToReviewComment(ctx, trig.CommentID, "eyes")
	default:
		err = j.gh.React(ctx, trig.Issue, trig.CommentID, "eyes")
	}
	if err != nil {
		j.log.Warning("could not react to the trigger: " + err.Error())
	}
}

func (j *Job) skip(msg string) error {
	j.setOutputs(outcome{status: status.Skipped, runID: j.env.RunID(), message: msg})
	return nil
}

// outcome is what the step outputs report.
type outcome struct {
	status                               status.Status
	runID, selected, resultFile, message string
	ledgerHash, ledgerCommit             string
	checkpointID                         string
	ledgerCheckpoint                     string
	// spent is what the run spent: the tokens and cost-usd outputs (what
	// is not wholly known is empty, never 0 nor a part).
	spent          cost.Spend
	pullRequest    int
	pullRequestURL string
}

func (j *Job) setOutputs(o outcome) {
	set := []struct{ name, value string }{
		{"status", string(o.status)}, {"run-id", o.runID}, {"selected-agent", o.selected},
		{"result-file", o.resultFile}, {"ledger-hash", o.ledgerHash}, {"ledger-commit", o.ledgerCommit},
		{"checkpoint-id", o.checkpointID}, {"ledger-checkpoint", o.ledgerCheckpoint},
		{"pull-request", pullNumber(o.pullRequest)}, {"pull-request-url", o.pullRequestURL},
		{"tokens", tokensOutput(o.spent)}, {"cost-usd", costOutput(o.spent)},
	}
	var errs []error
	for _, s := range set {
		errs = append(errs, j.outs.Set(s.name, s.value))
	}
	if err := errors.Join(errs...); err != nil {
		j.log.Error("could not write the step outputs: " + err.Error())
	}
}

// tokensOutput is the tokens output: the run's tokens, empty unless every
// call's are known (a command agent outside the model gateway, an answer
// without usage): a step that reads it never takes a part for the whole,
// nor an unknown for 0. The ledger and --json keep the known part.
func tokensOutput(s cost.Spend) string {
	if !s.TokensKnown() {
		return ""
	}
	return strconv.FormatInt(s.Tokens(), 10)
}

// costOutput is the cost-usd output: the run's cost in US dollars, empty
// unless it is wholly known (a model no price covers, a call of unknown
// use).
func costOutput(s cost.Spend) string {
	usd, ok := s.Cost()
	if !ok {
		return ""
	}
	return strconv.FormatFloat(usd, 'f', -1, 64)
}

// pullNumber is the pull-request output: the number, empty when none.
func pullNumber(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}
