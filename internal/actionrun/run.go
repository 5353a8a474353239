package actionrun

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/optr-dev/optr/internal/action"
	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/commitback"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/review"
	"github.com/optr-dev/optr/internal/status"
)

// spec is what trig asks of run runID under cfg, in this job's workspace
// at the checked-out commit, recorded in its datalake: the spec a run and
// a matrix plan share (a plan runs its coordinator in a scratch datalake,
// and protects this one from agents' changes).
func (j *Job) spec(trig action.Trigger, runID string, cfg *config.Config) pipeline.Spec {
	configPath, _ := j.configPath()
	return pipeline.Spec{
		Config: cfg, Workflow: trig.Workflow, RunID: runID, Intent: trig.Intent,
		Constraints: trig.Constraints, Pipeline: trig.Pipeline, Commit: j.env.SHA, Dir: j.workspace(),
		Datalake: j.datalake(), LedgerPath: datalake.Open(j.datalake()).LedgerPath(),
		ConfigPath: j.inWorkspace(configPath),
	}
}

// run carries out a Run trigger through the pipeline's driver: the
// progress comment follows the run, the ledger and the run's files are
// committed to the ledger branch, a pause is announced on the issue.
func (j *Job) run(ctx context.Context, trig action.Trigger) error {
	for _, bad := range trig.RejectedConstraints {
		j.log.Warning(fmt.Sprintf("ignored %q in the constraints: not a constraint name", bad))
	}
	runID := j.env.RunID()
	var it *iteration
	if trig.Iteration { // before the workspace's config is read: it may be a fork's
		var done bool
		var err error
		if it, done, err = j.pullOfTrigger(ctx, trig); done {
			return err
		}
	}
	cfg, err := j.configOf(ctx, it)
	if err != nil {
		return j.failEarly(ctx, trig, runID, err)
	}
	takeRequest(&trig, cfg)
	if it != nil {
		if done, err := j.prepareIteration(ctx, &trig, it, cfg); done {
			return err
		}
	}
	spec := j.spec(trig, runID, cfg)
	j.sweepOutcomes(ctx, spec)
	drv := j.driver(ctx, trig, cfg, spec.LedgerPath, &progressComment{j: j, issue: trig.Issue, title: title(trig)})
	if it != nil {
		spec.PullRequest, spec.Iteration = it.pull.Number, it.number
		drv.Deliverer.(*deliverer).from = it.from
	}
	rep, err := drv.Run(ctx, spec)
	if err != nil && rep == nil {
		var nothing *pipeline.NothingUsableError
		if errors.As(err, &nothing) {
			return j.nothingUsable(ctx, trig, nothing)
		}
		if pipeline.Refused(err) { // no agent started (a spent budget's figures, bad input): on the issue, exit 2
			return j.failEarly(ctx, trig, runID, &UsageError{Err: err})
		}
		j.setOutputs(outcome{status: status.Failed, runID: runID, message: err.Error()})
		return err
	}
	return j.conclude(ctx, rep) // a report returned with an error is a failed run's
}

// takeRequest reads an `/optr run` comment's request under cfg
// (architecture §4.16): its first word is the pipeline to run when cfg
// configures one of that name, and the rest is what the person asked
// for, which joins the intent of a run on an issue (an iteration's
// intent takes it with the review, prepareIteration).
func takeRequest(trig *action.Trigger, cfg *config.Config) {
	trig.TakePipeline(func(name string) bool { _, ok := cfg.Pipelines[name]; return ok })
	if !trig.Iteration {
		trig.Intent = review.WithRequest(trig.Intent, trig.Sender, trig.Request)
	}
}

// ledgerStore is the ledger a run's budgets count: the ledger branch's,
// where runs are committed; the workspace's when they are not (commit:
// false).
//
// A job reads the ledger branch once for everything it reads the ledger
// for (the outcomes of earlier pull requests, budgets, standings): the
// store of a branch and path is made once, and a commit-back moves it to
// what it committed (committed).
func (j *Job) ledgerStore(branch, ledgerPath string) ledger.Store {
	rel, err := pipeline.Spec{Dir: j.workspace()}.WorkspacePath(ledgerPath)
	if !j.in.Commit || err != nil {
		return ledger.Local(ledgerPath)
	}
	key := branch + "\x00" + rel
	if b := j.ledgers[key]; b != nil {
		return b
	}
	if j.ledgers == nil {
		j.ledgers = map[string]*branchLedger{}
	}
	b := &branchLedger{gh: j.gh, branch: branch, path: rel}
	j.ledgers[key] = b
	return b
}

// known is the active segment of the ledger at ledgerRel on branch as
// this job last read or committed it (nil when it did neither): a
// commit-back given it need not download it again (commitback's Known).
func (j *Job) known(branch, ledgerRel string) []byte {
	if b := j.ledgers[branch+"\x00"+ledgerRel]; b != nil {
		return b.active
	}
	return j.committed
}

// committedTo notes a commit-back to branch of the ledger at ledgerRel
// (repository-relative): the branch's ledger store reads on from it.
func (j *Job) committedTo(branch, ledgerRel string, res commitback.Result) {
	j.committed = res.Ledger
	for _, b := range j.ledgers {
		if b.path == ledgerRel && (b.branch == branch || b.branch == "" && branch == res.Branch) {
			b.tip, b.missing, b.active = res.CommitSHA, false, res.Ledger
		}
	}
}

// driver is the Action's pipeline.Driver for trig under cfg, the one for
// every step that drives a run (a run, a gather, an answer to a
// checkpoint): the progress comment pr follows the run; the ledger at
// ledgerPath and the run's files are committed to the ledger branch and
// read back from it; a pause is announced on the issue; a decision that
// needs a human becomes an escalation comment; π*'s change becomes a pull
// request.
func (j *Job) driver(ctx context.Context, trig action.Trigger, cfg *config.Config, ledgerPath string, pr *progressComment) *pipeline.Driver {
	deps := j.deps()
	deps.OnEscalation = j.escalationComments(ctx, trig, cfg.Escalation.Mention)
	branch := j.ledgerBranch(cfg.Ledger.Branch)
	return &pipeline.Driver{
		Deps:      deps,
		Recorder:  j.recorder(branch, ledgerPath),
		Store:     j.store(branch),
		Ledger:    j.ledgerStore(branch, ledgerPath),
		Observer:  pr,
		Asker:     &issueAsker{j: j, trig: trig},
		Deliverer: &deliverer{j: j, trig: trig, branch: branch},
	}
}

// conclude reports a run the driver carried to its end (completed, failed
// or paused) or stopped (failed, pipeline.Driver): job log, summary,
// outputs, the error annotation of a failed run, and the exit — all from
// the report's one status.
func (j *Job) conclude(ctx context.Context, rep *pipeline.Outcome) error {
	j.report(ctx, rep)
	switch rep.Status {
	case status.Failed:
		j.log.Error(fmt.Sprintf("run %s failed: %s", rep.Spec.RunID, rep.Message))
		return &FailedError{Err: errors.New(rep.Message)}
	case status.Paused:
		j.log.Notice(fmt.Sprintf("run %s paused at checkpoint %s: %s", rep.Spec.RunID, rep.CheckpointID, rep.Message))
	default:
		j.log.Notice(fmt.Sprintf("run %s %s: π* = %s", rep.Spec.RunID, rep.Status, orNone(rep.Selected)))
	}
	return nil
}

// report writes a run's log groups, job summary and step outputs.
func (j *Job) report(ctx context.Context, rep *pipeline.Outcome) {
	j.logResults(rep)
	j.summary(ctx, rep)
	j.setOutputs(outcome{
		status: rep.Status, runID: rep.Spec.RunID, selected: rep.Selected, resultFile: rep.ResultPath,
		ledgerHash: rep.LedgerHash, ledgerCommit: rep.Commit, checkpointID: rep.CheckpointID, message: rep.Message,
		spent: rep.Total(), ledgerCheckpoint: j.checkpointOf(rep),
		pullRequest: rep.Delivery.PullRequest, pullRequestURL: rep.Delivery.URL,
	})
}

// nothingUsable reports a run none of whose agents can work here, before
// any started: one comment on the issue saying what to add, status failed,
// exit 2 (a refusal, pipeline.Refused). Nothing is recorded: no agent ran.
func (j *Job) nothingUsable(ctx context.Context, trig action.Trigger, err *pipeline.NothingUsableError) error {
	j.log.Error(err.Error())
	if trig.Issue != 0 {
		if _, cerr := j.gh.UpsertComment(ctx, trig.Issue, comment.KindRun, err.RunID, err.Comment()); cerr != nil {
			j.log.Warning("could not comment on the issue: " + cerr.Error())
		}
	}
	j.setOutputs(outcome{status: status.Failed, runID: err.RunID, message: err.Error()})
	return &UsageError{Err: err}
}

// failEarly reports a run that could not start (bad config, bad input).
func (j *Job) failEarly(ctx context.Context, trig action.Trigger, runID string, err error) error {
	j.log.Error(err.Error())
	if trig.Issue != 0 {
		body := fmt.Sprintf("optr could not start run %s:\n\n%s", runID, markdown.Fence(err.Error()))
		if _, cerr := j.gh.UpsertComment(ctx, trig.Issue, "run", runID, body); cerr != nil {
			j.log.Warning("could not comment on the issue: " + cerr.Error())
		}
	}
	j.setOutputs(outcome{status: status.Failed, runID: runID, message: err.Error()})
	return err
}

// configOf is the config of a run, or of an answer to a checkpoint: the
// workspace's, or for an iteration (it not nil) its base branch's (see
// iterationConfig). Bad input is a *UsageError.
func (j *Job) configOf(ctx context.Context, it *iteration) (*config.Config, error) {
	if it != nil {
		return j.iterationConfig(ctx, it)
	}
	cfg, err := j.loadConfig()
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return cfg, nil
}

func (j *Job) loadConfig() (*config.Config, error) {
	path, explicit := j.configPath()
	cfg, err := config.LoadOrDefault(j.inWorkspace(path), explicit, j.agentEnv)
	if err != nil {
		return nil, err
	}
	return j.settle(cfg)
}

// configPath is the config input's path (default config.DefaultPath);
// explicit when the input names another.
func (j *Job) configPath() (path string, explicit bool) {
	path = j.in.Config
	explicit = path != "" && path != config.DefaultPath
	if path == "" {
		path = config.DefaultPath
	}
	return path, explicit
}

// settle applies the inputs to a config read and checks what the job
// needs of it: the changes input, the ledger key, the masks of its keys.
func (j *Job) settle(cfg *config.Config) (*config.Config, error) {
	if j.in.Changes != "" { // validated by action.LoadInputs
		cfg.Changes.Mode = j.in.Changes
	}
	if err := j.checkLedgerKey(cfg); err != nil {
		return nil, err
	}
	// Mask every key the config points at before any agent can print it.
	for _, name := range cfg.AgentNames {
		if env := cfg.Agents[name].APIKeyEnv; env != "" {
			j.log.Mask(j.Getenv(env))
		}
	}
	return cfg, nil
}

// agentEnv is the environment LLM providers read. In a Docker action the
// token arrives only as the github-token input; the copilot agent reads it
// as GITHUB_TOKEN (after COPILOT_GITHUB_TOKEN and GH_TOKEN).
func (j *Job) agentEnv(key string) string {
	v := j.Getenv(key)
	if v == "" && key == "GITHUB_TOKEN" {
		return j.in.GitHubToken
	}
	return v
}

func (j *Job) deps() pipeline.Deps {
	var environ []string
	for _, kv := range j.Environ {
		if !strings.HasPrefix(kv, "INPUT_") { // action inputs are not the agents' business
			environ = append(environ, kv)
		}
	}
	var worktrees string // agents' worktrees: the runner's temporary directory, emptied after every job
	if tmp := j.Getenv("RUNNER_TEMP"); tmp != "" {
		worktrees = filepath.Join(tmp, "optr-worktrees")
	}
	return pipeline.Deps{
		Getenv: j.agentEnv, Environ: environ, HTTPClient: j.HTTPClient, Now: j.Now, WorktreeRoot: worktrees,
		Stderr: logLines(func(line string) { j.log.Infof("%s", line) }),
		Logf:   func(format string, args ...any) { j.log.Untrusted("diagnostic", fmt.Sprintf(format, args...)) },
	}
}

// escalationComments posts an escalation comment for each watcher
// decision that needs a human (escalate_ceo, abort), once per escalation.
func (j *Job) escalationComments(ctx context.Context, trig action.Trigger, mention []string) func(escalation.Escalation) {
	var mu sync.Mutex // decisions arrive from agent goroutines; writes to GitHub go one at a time
	return func(e escalation.Escalation) {
		j.log.Warning(fmt.Sprintf("watcher: %s — %s", e.Decision.Action, e.Reason))
		if !e.NeedsHuman() || trig.Issue == 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if _, err := j.gh.UpsertComment(ctx, trig.Issue, comment.KindEscalation, e.ID, escalation.Comment(e, mention)); err != nil {
			j.log.Warning("could not post the escalation comment: " + err.Error())
		}
	}
}

// logLines is an io.Writer that hands each complete line to fn.
type logLines func(string)

func (f logLines) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line != "" {
			f(line)
		}
	}
	return len(p), nil
}

func (j *Job) workspace() string {
	if j.env.Workspace != "" {
		return j.env.Workspace
	}
	return "."
}

func (j *Job) inWorkspace(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(j.workspace(), p)
}

func (j *Job) datalake() string { return j.inWorkspace(j.in.Datalake) }

// logOutputMax bounds the output an agent's log group shows: the job log
// is no place to read an output of tens of MiB, and the file holds it.
const logOutputMax = 64 << 10

// logResults prints one log group per agent; agent text is untrusted.
func (j *Job) logResults(rep *pipeline.Outcome) {
	for _, r := range rep.Results {
		j.log.Group(fmt.Sprintf("%s: %s in %dms", r.Agent, r.Status, r.ExecMS))
		if r.Error != "" {
			j.log.Untrusted("error", r.Error)
		}
		if r.HasOutput() {
			text, whole := r.Excerpt(logOutputMax)
			label := "output"
			if !whole {
				label = fmt.Sprintf("output (its first %d bytes; the whole output is in %s)", len(text), j.relative(rep.AgentOutputPath(r.Agent)))
			}
			j.log.Untrusted(label, text)
		}
		if r.Stderr != "" {
			j.log.Untrusted("stderr", r.Stderr)
		}
		j.log.EndGroup()
	}
}
