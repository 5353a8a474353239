package recovery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/sandbox/proxy"
)

// maxErrorText bounds Attempt.Error and the error text shown to the analyzer.
const maxErrorText = 2000

// Run runs agent a on req until an attempt succeeds or recovery gives up,
// and returns every attempt. accept, when not nil, judges a successful
// attempt's response (the executor's hard-constraint checks); an error from
// it makes the attempt a systematic failure with reason ReasonFailedChecks
// (or the Reason of an *agent.Error it returns), which goes to analysis.
// Run never returns before its last attempt or analysis has returned.
func (p Policy) Run(ctx context.Context, a agent.Agent, req agent.Request, accept func(context.Context, agent.Response) error) Outcome {
	r := &runner{p: p.withDefaults(), agent: a, req: req, accept: accept}
	r.start = r.p.Clock.Now()
	r.loop(ctx)
	return r.out
}

// runner is the state of one Run.
type runner struct {
	p      Policy
	agent  agent.Agent
	req    agent.Request
	accept func(context.Context, agent.Response) error

	start        time.Time
	out          Outcome
	lastErr      error
	transient    int // attempts that failed transiently
	alternatives int // attempts started with an analyzer's hint
	hints        []string
}

func (r *runner) loop(ctx context.Context) {
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			r.cancelled(ctx, r.last(), err)
			return
		}
		if exhausted(r.p.Budget) {
			r.budgetExhausted(r.last())
			return
		}
		r.out.Attempts = append(r.out.Attempts, Attempt{})
		at := r.last()
		err := r.attempt(ctx, n, at)
		if !r.next(ctx, at, err) {
			r.notify(at)
			return
		}
		if at.Outcome != OutcomeRetry { // a retry was announced before its wait
			r.notify(at)
		}
	}
}

// last returns the latest attempt, nil before the first.
func (r *runner) last() *Attempt {
	if len(r.out.Attempts) == 0 {
		return nil
	}
	return &r.out.Attempts[len(r.out.Attempts)-1]
}

// attempt runs the agent once and, on success, accept; it fills in at and
// returns the attempt's failure.
func (r *runner) attempt(ctx context.Context, n int, at *Attempt) error {
	*at = Attempt{N: n, Start: r.p.Clock.Now(), Hint: r.req.Hint}
	actx, cancel := r.withTimeout(ctx)
	resp, err := r.agent.Run(actx, r.req)
	cancel()
	at.DurationMS = r.p.Clock.Now().Sub(at.Start).Milliseconds()
	at.Usage = resp.Usage
	at.Calls, at.CallsOmitted = resp.Calls, resp.CallsOmitted
	r.spend(resp.Usage, false)
	// Only the latest attempt's response is kept: an earlier attempt's
	// output file (up to the output bound on disk) is removed now, not at
	// the run's end.
	if old := r.out.Response.Spool; old != nil && (resp.Spool == nil || resp.Spool.Path != old.Path) {
		_ = old.Remove() // a file left behind goes with the run's spool files
	}
	// Every host an attempt reached or was refused stays on record.
	resp.Network = proxy.Merge(r.out.Response.Network, resp.Network)
	r.out.Response = resp
	if err == nil && r.accept != nil {
		if cerr := r.accept(ctx, resp); cerr != nil {
			err = rejected(cerr)
		}
	}
	if err != nil {
		at.Class = agent.ClassOf(err)
		at.Reason = reasonOf(err)
		at.Error = markdown.Truncate(err.Error(), maxErrorText)
	}
	return err
}

// next records what follows the attempt at, which ended with err, and
// reports whether another attempt follows.
func (r *runner) next(ctx context.Context, at *Attempt, err error) bool {
	if err == nil {
		at.Outcome = OutcomeSucceeded
		r.out.Status = OutcomeSucceeded
		return false
	}
	r.lastErr = err
	if cerr := ctx.Err(); cerr != nil {
		at.Class, at.Reason = "", OutcomeCancelled
		r.cancelled(ctx, at, cerr)
		return false
	}
	if errors.Is(err, ErrBudgetExhausted) {
		// A call the run's budget refused (the model gateway's): no
		// attempt after it would get further.
		r.budgetExhausted(at)
		return false
	}
	switch at.Class {
	case agent.Fatal:
		r.escalate(at, ReasonFatal, "a fatal failure is never retried; check the agent's credentials, model and configuration")
		return false
	case agent.Transient:
		return r.retry(ctx, at, err)
	default:
		return r.analyse(ctx, at)
	}
}

// retry waits before the next attempt after a transient failure, or
// escalates when the attempts or the time are used up.
func (r *runner) retry(ctx context.Context, at *Attempt, err error) bool {
	r.transient++
	if r.transient >= r.p.Attempts {
		r.escalate(at, ReasonRetriesExhausted, fmt.Sprintf(
			"%d attempts failed transiently (recovery.attempts); the provider may be down or rate-limiting, try again later", r.transient))
		return false
	}
	wait := max(Backoff(r.transient, r.p.BaseDelay, r.p.MaxDelay, r.p.Rand), agent.RetryAfterOf(err))
	if r.p.MaxTotal > 0 && r.p.Clock.Now().Add(wait).After(r.start.Add(r.p.MaxTotal)) {
		r.escalate(at, ReasonRetryBudget, fmt.Sprintf(
			"the next retry, due in %s, would start after recovery.max-total (%s); try again later or raise it", wait, r.p.MaxTotal))
		return false
	}
	if exhausted(r.p.Budget) {
		r.budgetExhausted(at)
		return false
	}
	at.Outcome = OutcomeRetry
	at.DelayMS = wait.Milliseconds()
	r.notify(at)
	before := r.p.Clock.Now()
	if serr := r.p.Clock.Sleep(ctx, wait); serr != nil {
		at.DelayMS = r.p.Clock.Now().Sub(before).Milliseconds()
		r.cancelled(ctx, at, serr)
		return false
	}
	return true
}

// analyse asks the analyzer about a systematic failure and either sets up an
// alternative attempt or escalates.
func (r *runner) analyse(ctx context.Context, at *Attempt) bool {
	switch {
	case r.p.Analyzer == nil:
		r.escalate(at, ReasonNoAnalyzer, "no recovery.analyzer is configured to suggest an alternative")
		return false
	case r.alternatives >= r.p.MaxAlternatives:
		r.escalate(at, ReasonAlternativesExhausted, fmt.Sprintf(
			"still failing after %d alternative(s) suggested by the analyzer (recovery.max-alternatives)", r.alternatives))
		return false
	case r.p.MaxTotal > 0 && !r.p.Clock.Now().Before(r.start.Add(r.p.MaxTotal)):
		r.escalate(at, ReasonRetryBudget, fmt.Sprintf("recovery.max-total (%s) has passed", r.p.MaxTotal))
		return false
	case exhausted(r.p.Budget):
		r.budgetExhausted(at)
		return false
	}
	an := r.ask(ctx, at)
	at.Analysis, r.out.Analysis = an, an
	if cerr := ctx.Err(); cerr != nil {
		r.cancelled(ctx, at, cerr)
		return false
	}
	switch an.Action {
	case ActionAlternative:
		r.alternatives++
		r.hints = append(r.hints, an.Hint)
		r.req.Hint = an.Hint
		at.Outcome = OutcomeAlternative
		return true
	case ActionDiagnostics:
		r.escalate(at, ReasonAnalyzerDiagnostics, "the analyzer asks a human to gather diagnostics: "+an.says())
	case ActionUnblock:
		r.escalate(at, ReasonAnalyzerUnblock, "the analyzer asks a human to unblock the agent: "+an.says())
	case ActionEscalate:
		r.escalate(at, ReasonAnalyzerEscalate, "the analyzer hands the task to a human: "+an.says())
	default:
		r.escalate(at, ReasonAnalyzerFailed, "the failure could not be analysed: "+an.Error)
	}
	return false
}

// ask runs the analyzer on the failure of at. The result's Action is empty
// and Error set when the analyzer failed or answered something unusable.
func (r *runner) ask(ctx context.Context, at *Attempt) *Analysis {
	prompt := analysisPrompt(failure{
		agent:  r.agent.Name(),
		intent: r.req.Intent,
		class:  at.Class,
		reason: at.Reason,
		msg:    at.Error,
		resp:   r.out.Response,
		hints:  r.hints,
	})
	actx, cancel := r.withTimeout(ctx)
	defer cancel()
	resp, err := r.p.Analyzer.Run(actx, agent.Request{
		Intent:   prompt,
		Workflow: r.req.Workflow,
		RunID:    r.req.RunID,
		Stage:    r.req.Stage,
		Dir:      r.req.Dir,
	})
	r.spend(resp.Usage, true)
	an, perr := ParseAnalysis(resp.Output)
	if perr != nil && resp.Raw != "" && resp.Raw != resp.Output {
		an, perr = ParseAnalysis(resp.Raw)
	}
	// An LLM provider wraps the prompt in its own answer format; a model that
	// answers with the analysis JSON alone makes the provider report
	// unparseable output although Raw holds a valid analysis. Only that
	// case is salvaged: any other analyzer error escalates.
	if err != nil && (perr != nil || agent.ClassOf(err) != agent.Systematic) {
		return &Analysis{Usage: resp.Usage, Error: markdown.Truncate(
			fmt.Sprintf("analyzer %s failed: %v", r.p.Analyzer.Name(), err), maxErrorText)}
	}
	if perr != nil {
		return &Analysis{Usage: resp.Usage, Error: fmt.Sprintf("analyzer %s: %v", r.p.Analyzer.Name(), perr)}
	}
	an.Usage = resp.Usage
	return &an
}

// spend counts u in the outcome (the run's budget counts the call where
// it is made: see Budget).
func (r *runner) spend(u agent.Usage, analyzer bool) {
	r.out.Usage = r.out.Usage.Add(u)
	if analyzer {
		r.out.AnalyzerUsage = r.out.AnalyzerUsage.Add(u)
	}
}

func (r *runner) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if r.p.AttemptTimeout > 0 {
		return context.WithTimeout(ctx, r.p.AttemptTimeout)
	}
	return context.WithCancel(ctx)
}

// notify tells the Policy's OnAttempt listener about at.
func (r *runner) notify(at *Attempt) {
	if r.p.OnAttempt != nil && at != nil {
		r.p.OnAttempt(*at)
	}
}
