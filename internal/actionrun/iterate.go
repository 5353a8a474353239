package actionrun

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/optr-dev/optr/internal/action"
	"github.com/optr-dev/optr/internal/changes"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/review"
	"github.com/optr-dev/optr/internal/status"
)

// Iteration (architecture §4.16): `/optr run` on a pull request optr opened
// runs the agents again from the branch's tip, with the original intent
// and what reviewers said since optr's last commit, and pushes π*'s change
// as one new commit on the same branch.

// iteration is a run on a pull request optr opened.
type iteration struct {
	pull github.PullRequestInfo
	// workflow and origin name the run that opened the pull request.
	workflow, origin string
	// number is this run's iteration: 2 for the first after the opening.
	number int
	// from is the commit the agents start from: the workspace's HEAD.
	from string
}

// Short answers to an /optr run that does not iterate.
const (
	notOursReply = "optr iterates only on its own pull requests: those it opened from a branch `optr/<workflow>/<run-id>` of this repository, as its ledger records. #%d is not one of them, so nothing runs; to start a run, label an issue `%s`."
	forkReply    = "optr does not run on pull requests from forks: #%d comes from %s, and running agents and checks on its code with this repository's secrets would hand those secrets to its author. Nothing runs."
	closedReply  = "#%d is %s; optr iterates only on open pull requests."
)

// pullOfTrigger reads the pull request an /optr command came on and
// refuses, with a short reply, one optr must not act on: a fork's (never
// its code with this repository's secrets) or one not from a branch optr
// names. Nothing of the workspace is read before this: on a fork's pull
// request the workspace may hold the fork's code. done is true when the
// job ends here.
func (j *Job) pullOfTrigger(ctx context.Context, trig action.Trigger) (it *iteration, done bool, err error) {
	pull, err := j.gh.PullRequest(ctx, trig.Issue)
	if err != nil {
		j.setOutputs(outcome{status: status.Failed, runID: j.env.RunID(), message: err.Error()})
		return nil, true, err
	}
	if pull.Fork(j.gh) {
		return nil, true, j.reply(ctx, trig, fmt.Sprintf(forkReply, pull.Number, "`"+pull.HeadRepo+"`"), nil)
	}
	wf, origin, ok := changes.ParseBranch(pull.HeadRef)
	if !ok {
		return nil, true, j.reply(ctx, trig, fmt.Sprintf(notOursReply, pull.Number, j.in.TriggerLabel), nil)
	}
	if pull.State != "open" {
		return nil, true, j.reply(ctx, trig, fmt.Sprintf(closedReply, pull.Number, pull.State), nil)
	}
	return &iteration{pull: pull, workflow: wf, origin: origin}, false, nil
}

// prepareIteration checks, under cfg, that optr's ledger records it.pull
// as opened by optr, reads the original run's intent and constraints, and
// turns trig into the iteration's run: its workflow, its intent (the
// original's plus the review since optr's last commit) and constraints.
func (j *Job) prepareIteration(ctx context.Context, trig *action.Trigger, it *iteration, cfg *config.Config) (done bool, err error) {
	if cfg.Changes.Mode != config.ChangesPullRequest {
		return true, j.reply(ctx, *trig, fmt.Sprintf("optr iterates on a pull request only with code changes as pull requests (`changes.mode: pull-request`, or the `changes` input); here it is `%s`, so nothing runs.", cfg.Changes.Mode), nil)
	}
	branch := j.ledgerBranch(cfg.Ledger.Branch)
	lake := datalake.Open(j.datalake())
	data, err := j.store(branch).ReadFile(ctx, lake.LedgerPath())
	if err != nil {
		return true, j.failIteration(ctx, *trig, err)
	}
	opened, runs, err := pullRuns(data, it)
	if err != nil {
		return true, j.failIteration(ctx, *trig, fmt.Errorf("read the ledger: %w", err))
	}
	if !opened {
		return true, j.reply(ctx, *trig, fmt.Sprintf(notOursReply, it.pull.Number, j.in.TriggerLabel), nil)
	}
	it.number = runs + 1

	resolved, err := j.store(branch).ReadFile(ctx, filepath.Join(lake.RunDir(it.workflow, it.origin), datalake.FileWorkflow))
	if err == nil && resolved == nil {
		err = fmt.Errorf("the run %s that opened #%d left no %s on the ledger branch", it.origin, it.pull.Number, datalake.FileWorkflow)
	}
	var orig originalRun
	if err == nil {
		orig, err = readOriginal(resolved)
	}
	if err != nil {
		return true, j.failIteration(ctx, *trig, err)
	}

	last, err := j.lastOptrCommit(ctx, it.pull.HeadSHA)
	if err != nil {
		return true, j.failIteration(ctx, *trig, err)
	}
	if err := j.onBranch(ctx, it, last.SHA); err != nil {
		return true, j.failIteration(ctx, *trig, err)
	}
	since := last.Time
	remarks, err := j.gh.Remarks(ctx, it.pull.Number, since)
	if err != nil {
		return true, j.failIteration(ctx, *trig, err)
	}
	trig.Workflow = it.workflow
	trig.Intent = review.Intent(orig.intent, review.Iteration{
		PullRequest: it.pull.Number, Branch: it.pull.HeadRef, Number: it.number, Truncated: remarks.Truncated,
		Request: trig.Request, Requester: trig.Sender,
		Trigger: github.Remark{Kind: string(trig.CommentKind), ID: trig.CommentID},
	}, remarks.List, j.writers(ctx))
	for _, c := range orig.constraints {
		if _, ok := cfg.Constraints[c]; ok {
			trig.Constraints = appendNew(trig.Constraints, c)
		}
	}
	return false, nil
}

// maxAuthorChecks bounds the permission checks one iteration makes of the
// authors of remarks: beyond it, an author is not checked, so left out.
const maxAuthorChecks = 100

// writers is review.Trusted for this job: optr's own identity, and people
// whose permission on the repository is write, maintain or admin,
// checked through the API once per author (at most maxAuthorChecks);
// an error is a no (architecture §6).
func (j *Job) writers(ctx context.Context) review.Trusted {
	seen := map[string]bool{}
	return func(author string, bot bool) bool {
		if strings.EqualFold(author, j.gh.Author()) {
			return true
		}
		key := strings.ToLower(author)
		if ok, done := seen[key]; done {
			return ok
		}
		if len(seen) >= maxAuthorChecks {
			return false
		}
		kind := "User"
		if bot {
			kind = "Bot"
		}
		ok := j.gh.Authorize(ctx, author, kind).Access == github.Allowed
		seen[key] = ok
		return ok
	}
}

// failIteration reports an iteration that could not start, on the pull
// request: bad input (a *UsageError) exits 2, anything else 1.
func (j *Job) failIteration(ctx context.Context, trig action.Trigger, err error) error {
	j.post(ctx, trig, "optr could not start an iteration on this pull request: "+err.Error())
	j.setOutputs(outcome{status: status.Failed, runID: j.env.RunID(), message: err.Error()})
	return err
}

// pullRuns reads a ledger segment for the runs on it.pull: opened is true
// when the run that named its branch recorded it, runs counts the runs
// recorded on it (the opening one included).
func pullRuns(data []byte, it *iteration) (opened bool, runs int, err error) {
	err = ledger.Scan(bytes.NewReader(data), func(e ledger.Entry) error {
		if e.Kind != "run" {
			return nil
		}
		n, ok := e.Fields["pull_request"].(json.Number)
		if !ok || n.String() != fmt.Sprint(it.pull.Number) {
			return nil
		}
		runs++
		opened = opened || e.Run == it.origin && e.Workflow == it.workflow
		return nil
	})
	return opened, runs, err
}

// originalRun is what an iteration keeps of the run that opened the pull
// request, from its workflow-optr.yaml.
type originalRun struct {
	intent      string
	constraints []string
}

func readOriginal(data []byte) (originalRun, error) {
	var doc struct {
		Intent       string `yaml:"intent"`
		IntentBase64 string `yaml:"intent_base64"`
		Constraints  []struct {
			Name string `yaml:"name"`
		} `yaml:"constraints"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return originalRun{}, fmt.Errorf("read the original run's %s: %w", datalake.FileWorkflow, err)
	}
	out := originalRun{intent: doc.Intent}
	if doc.IntentBase64 != "" {
		b, err := base64.StdEncoding.DecodeString(doc.IntentBase64)
		if err != nil {
			return originalRun{}, fmt.Errorf("read the original run's intent: %w", err)
		}
		out.intent = string(b)
	}
	if out.intent == "" {
		return originalRun{}, errors.New("the original run's intent is empty")
	}
	for _, c := range doc.Constraints {
		out.constraints = append(out.constraints, c.Name)
	}
	return out, nil
}

// maxWalk bounds the commits read looking for optr's last one.
const maxWalk = 100

// lastOptrCommit returns optr's last commit on the branch whose tip is
// tip: the newest commit, along first parents, whose message carries
// changes.RunTrailer. The zero DatedCommit when there is none within
// maxWalk commits: every remark counts.
func (j *Job) lastOptrCommit(ctx context.Context, tip string) (github.DatedCommit, error) {
	for sha, n := tip, 0; sha != "" && n < maxWalk; n++ {
		c, err := j.gh.DatedCommit(ctx, sha)
		if err != nil {
			return github.DatedCommit{}, err
		}
		if changes.HasTrailer(c.Message) {
			return c, nil
		}
		sha = c.Parent
	}
	return github.DatedCommit{}, nil
}

// onBranch checks that the workspace's HEAD (it.from), where the agents
// start, is on the pull request's branch: at or after optr's last commit
// there (last, when known) and at or before its tip. A tip ahead of it is
// someone's push since the job checked the branch out: π*'s change is
// carried onto it. Anything else (the default branch checked out, as
// actions/checkout does for a comment) is bad input.
func (j *Job) onBranch(ctx context.Context, it *iteration, last string) error {
	within := func(older, newer string) bool {
		if older == newer {
			return true
		}
		cmp, err := j.gh.Compare(ctx, older, newer)
		return err == nil && (cmp.Status == "ahead" || cmp.Status == "identical")
	}
	if (last != "" && !within(last, it.from)) || !within(it.from, it.pull.HeadSHA) {
		return &UsageError{Err: fmt.Errorf(
			"the workspace is at %.7s, which is not on the pull request's branch %s (at %.7s): check out the pull request's head before optr runs (actions/checkout with `ref: refs/pull/%d/head`); if the job did, someone force-pushed the branch since, and a new `/optr run` starts from its new tip",
			it.from, it.pull.HeadRef, it.pull.HeadSHA, it.pull.Number)}
	}
	if it.from != it.pull.HeadSHA {
		j.log.Notice(fmt.Sprintf("%s moved from %.7s to %.7s since this job checked it out; π*'s change will be carried onto its tip", it.pull.HeadRef, it.from, it.pull.HeadSHA))
	}
	return nil
}

// appendNew appends s unless list holds it.
func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
