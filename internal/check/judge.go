package check

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/redact"
)

// maxJudgeReason bounds the judge's reason kept in an Outcome.
const maxJudgeReason = 500

func init() {
	register(config.CheckJudge, kind{
		build:    newJudgeFromConfig,
		describe: func(c config.Constraint) string { return c.Criterion },
		judged:   true,
	})
}

// judgeCheck asks an agent whether an output meets a criterion. Each output
// is judged on its own (absolute grading, never side by side with another
// output), and verdicts are cached per run by output, constraint and
// criterion.
type judgeCheck struct {
	name      string
	criterion string
	agent     agent.Agent
	cache     *Verdicts
	timeout   time.Duration
	maxChars  int
	workflow  string
	runID     string
	dir       string
	redact    *redact.Redactor
	budget    Budget
}

func newJudgeFromConfig(name string, c config.Constraint, opts Options) (Checker, error) {
	agentName := c.Agent
	if agentName == "" {
		agentName = opts.DefaultJudge
	}
	if agentName == "" {
		return nil, errors.New("no judge agent: set agent: to the name of an LLM agent defined under agents")
	}
	a, err := judgeAgent(opts, agentName)
	if err != nil {
		return nil, err
	}
	criterion := c.Criterion
	if criterion == "" {
		criterion = c.Description
	}
	if criterion == "" {
		criterion = name
	}
	return newJudge(name, criterion, a, c.Timeout.D(), opts), nil
}

func judgeAgent(opts Options, name string) (agent.Agent, error) {
	if opts.Judge == nil {
		return nil, fmt.Errorf("judge agent %q is not available: this run has no agents to judge with", name)
	}
	a, err := opts.Judge(name)
	if err != nil {
		return nil, fmt.Errorf("judge agent %q: %w", name, err)
	}
	if a == nil {
		return nil, fmt.Errorf("judge agent %q is not defined: add it under agents: or name another agent", name)
	}
	return a, nil
}

func newJudge(name, criterion string, a agent.Agent, timeout time.Duration, opts Options) *judgeCheck {
	cache := opts.Cache
	if cache == nil {
		cache = NewVerdicts()
	}
	maxChars := opts.JudgeMaxChars
	if maxChars <= 0 {
		maxChars = DefaultJudgeMaxChars
	}
	return &judgeCheck{
		name:      name,
		criterion: criterion,
		agent:     a,
		cache:     cache,
		timeout:   timeoutOr(timeout),
		maxChars:  maxChars,
		workflow:  opts.Workflow,
		runID:     opts.RunID,
		dir:       opts.Dir,
		redact:    opts.Redactor,
		budget:    opts.Budget,
	}
}

// Check implements Checker. A verdict that cannot be had is an error:
// Evaluate fails a hard constraint with it, and leaves a soft one
// unverified.
func (j *judgeCheck) Check(ctx context.Context, output string) (Outcome, error) {
	return j.cache.do(ctx, j.key(output), func() (Outcome, error) { return j.judge(ctx, output) })
}

// key identifies a verdict: the same output, constraint and criterion always
// get the same verdict within a run.
func (j *judgeCheck) key(output string) string {
	sum := sha256.Sum256([]byte(output))
	return hex.EncodeToString(sum[:]) + "\x00" + j.name + "\x00" + j.criterion
}

func (j *judgeCheck) judge(ctx context.Context, output string) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, j.timeout)
	defer cancel()
	prompt, err := judgePrompt(j.criterion, output, j.maxChars)
	if err != nil {
		return Outcome{}, err
	}
	if j.budget != nil && j.budget.Exhausted() {
		return Outcome{}, fmt.Errorf("not judged: the run's budget is spent (%s)", j.budget.Spent())
	}
	resp, err := j.agent.Run(ctx, agent.Request{
		Intent:   prompt,
		Workflow: j.workflow,
		RunID:    j.runID,
		Dir:      j.dir,
	})
	resp.Output, resp.Raw = j.redact.String(resp.Output), j.redact.String(resp.Raw)
	v, verr := readVerdict(resp, err)
	if verr != nil {
		if err != nil {
			return Outcome{}, fmt.Errorf("judge %s did not answer: %w", j.agent.Name(), err)
		}
		answer := resp.Output
		if answer == "" {
			answer = resp.Raw
		}
		return Outcome{}, fmt.Errorf("judge %s gave no verdict (%w); its answer began %s", j.agent.Name(), verr, quote(answer, 200))
	}
	reason := markdown.OneLine(j.redact.String(v.Reason), maxJudgeReason)
	if reason == "" {
		reason = "no reason given"
	}
	return Outcome{Pass: v.Pass, Reason: fmt.Sprintf("judged by %s: %s", j.agent.Name(), reason)}, nil
}

// readVerdict reads the verdict from a judge agent's answer. An LLM agent
// whose model answered {"pass": …} bare, outside the {"output": …} envelope
// it asks for, returns an error with the model's text in Raw: the verdict is
// read from there too. When the agent failed, only Raw is read (an Output
// beside an error may be partial).
func readVerdict(resp agent.Response, runErr error) (judgeAnswer, error) {
	texts := []string{resp.Output, resp.Raw}
	if runErr != nil {
		texts = []string{resp.Raw}
	}
	err := errors.New("the judge's answer is empty")
	for _, t := range texts {
		if t == "" {
			continue
		}
		var v judgeAnswer
		if v, err = parseVerdict(t); err == nil {
			return v, nil
		}
	}
	return judgeAnswer{}, err
}
