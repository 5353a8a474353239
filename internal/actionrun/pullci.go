package actionrun

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/changes"
	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/pipeline"
)

// pushClient is the client that pushes π*'s branch and opens its pull
// request (architecture §4.16): one on the pr-token when the job has one, so
// that GitHub starts the repository's pull_request workflows, else the
// job's own.
func (j *Job) pushClient(ctx context.Context) (*github.Client, error) {
	if j.in.PRToken == "" {
		return j.gh, nil
	}
	if j.pr == nil {
		pr, err := github.New(ctx, github.Options{
			APIURL: j.env.APIURL, Token: j.in.PRToken, Repository: j.env.Repository,
			HTTPClient: j.HTTPClient, Now: j.Now, Sleep: j.Sleep,
			DefaultBranch: github.DefaultBranchOfEvent(j.env.EventPath),
		})
		if err != nil {
			return nil, fmt.Errorf("connect to GitHub with the pr-token: %w", err)
		}
		j.pr = pr
	}
	return j.pr, nil
}

// ci starts the workflows of changes.ci on branch, unless the pr-token
// pushed it (then the repository's own pull_request workflows run), and
// returns the pull request body's section saying what CI runs on it: the
// runs started, the workflows GitHub refused to start and why, or that
// no CI runs and what to change.
func (d *deliverer) ci(ctx context.Context, workflows []string, branch string) string {
	j := d.j
	var b strings.Builder
	b.WriteString("\n**CI**: ")
	switch {
	case j.in.PRToken != "":
		b.WriteString("optr pushed this branch with the `pr-token`, so the repository's `pull_request` workflows run on it.\n")
	case len(workflows) == 0:
		b.WriteString("no CI runs on this pull request. optr pushed it with the workflow's `GITHUB_TOKEN`, and GitHub starts no workflows for pushes and pull requests made with that token. " +
			"To run CI here, give optr a `pr-token` (a GitHub App installation token or a fine-grained token), or name workflows that have a `workflow_dispatch` trigger in `changes.ci` (the job needs `actions: write`).\n")
	default:
		b.WriteString("optr started these workflows on this branch (`changes.ci`); pull requests opened with `GITHUB_TOKEN` start no `pull_request` workflows.\n\n")
		for _, wf := range workflows {
			run, err := j.gh.DispatchWorkflow(ctx, wf, branch)
			switch {
			case err != nil:
				j.log.Warning(fmt.Sprintf("could not start %s on %s: %v", wf, branch, err))
				fmt.Fprintf(&b, "- `%s`: not started. %s\n", wf, err)
			case run.URL != "":
				j.log.Notice(fmt.Sprintf("started %s on %s: %s", wf, branch, run.URL))
				fmt.Fprintf(&b, "- `%s`: [run %d](%s)\n", wf, run.ID, run.URL)
			default:
				j.log.Notice(fmt.Sprintf("started %s on %s", wf, branch))
				fmt.Fprintf(&b, "- `%s`: started; GitHub did not say which run it is (see the Actions tab)\n", wf)
			}
		}
	}
	return b.String()
}

// iterate delivers an iteration's change (architecture §4.16): one new commit
// on the pull request's branch, compare-and-swap, carried onto a push
// someone made meanwhile or refused with git's reason when it conflicts;
// then CI as for a new pull request, and the run's section appended to
// the pull request's body.
func (d *deliverer) iterate(ctx context.Context, rep *pipeline.Outcome, patch []byte) (pipeline.Delivery, error) {
	j := d.j
	n := rep.Spec.PullRequest
	pull, err := j.gh.PullRequest(ctx, n)
	if err != nil {
		return pipeline.Delivery{}, err
	}
	if _, _, ok := changes.ParseBranch(pull.HeadRef); !ok || pull.Fork(j.gh) {
		return pipeline.Delivery{}, fmt.Errorf("pull request #%d is not from one of optr's branches of %s (it is from %s:%s): optr pushes only to its own", n, j.gh.Repository(), pull.HeadRepo, pull.HeadRef)
	}
	push, err := j.pushClient(ctx)
	if err != nil {
		return pipeline.Delivery{}, err
	}
	red := d.redactor(rep.Spec.Config)
	msg := red.String(attribution(rep).Message(fmt.Sprintf("optr: iteration %d on #%d (π* = %s)", rep.Spec.Iteration, n, rep.Selected),
		fmt.Sprintf("The change of %s, selected by optr run %s of %s.", rep.Selected, rep.Spec.RunID, rep.Spec.Workflow)))
	pushed, err := changes.PushIteration(ctx, push, patch, changes.Iteration{Branch: pull.HeadRef, From: d.from, Message: msg})
	if err != nil {
		return pipeline.Delivery{}, err
	}
	note := ""
	if pushed.Rebased {
		note = fmt.Sprintf(" (%s moved from %.7s to %.7s during the run: the change was carried onto the new tip)", pull.HeadRef, d.from, pushed.Parent)
	}
	j.log.Notice(fmt.Sprintf("pushed %.7s onto %s of pull request #%d%s", pushed.Commit, pull.HeadRef, n, note))

	section := red.String(d.iterationSection(rep, pushed, note) + d.ci(ctx, rep.Spec.Config.Changes.CI, pull.HeadRef))
	if err := j.gh.EditPullRequestBody(ctx, n, appendSection(pull.Body, section)); err != nil {
		j.log.Warning("could not add the run to the pull request's description: " + err.Error())
	}
	return pipeline.Delivery{PullRequest: n, URL: pull.URL, Branch: pull.HeadRef}, nil
}

// iterationSection is what an iteration adds to the pull request's body:
// the run, its score table and its commit.
func (d *deliverer) iterationSection(rep *pipeline.Outcome, pushed changes.Pushed, note string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n\n---\n\n### Iteration %d: optr run `%s`\n\noptr run `%s` selected **%s** (π*) among %d agents and pushed its change, written by %s, as %s%s.",
		rep.Spec.Iteration, rep.Spec.RunID, rep.Spec.RunID, rep.Selected, len(rep.Results), writtenBy(rep), pushed.Commit, note)
	d.scores(&b, rep, maxIterationTable)
	return b.String()
}

// maxIterationTable bounds one iteration's score table in the body.
const maxIterationTable = 20_000

// maxBody is GitHub's limit on a pull request body, in characters.
const maxBody = 65536

// appendSection adds section to body within GitHub's limit: when the two
// do not fit, the oldest part of the body gives way, with a note.
func appendSection(body, section string) string {
	const note = "[… earlier iterations cut to fit GitHub's limit: every run is in optr's ledger]\n\n"
	if utf8.RuneCountInString(body)+utf8.RuneCountInString(section) <= maxBody {
		return body + section
	}
	keep := maxBody - utf8.RuneCountInString(section) - utf8.RuneCountInString(note)
	r := []rune(body)
	if keep <= 0 {
		s := []rune(note + section)
		return string(s[:min(len(s), maxBody)])
	}
	return note + string(r[len(r)-keep:]) + section
}
