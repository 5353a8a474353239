package executor

import (
	"errors"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/recovery"
	"github.com/optr-dev/optr/internal/sandbox/proxy"
	"github.com/optr-dev/optr/internal/spool"
	"github.com/optr-dev/optr/internal/status"
)

// fill copies a launch's recovery outcome into r. What one launch says
// (output, status, error) replaces the previous launch's; attempts and
// token use add up.
func fill(r *Result, out recovery.Outcome, t Task) {
	resp := out.Response
	// The previous launch's output file is replaced: remove it now, not
	// at the run's end (each holds up to the output bound on disk).
	for _, f := range []*spool.File{r.OutputFile, r.RawFile} {
		if f != nil && (resp.Spool == nil || f.Path != resp.Spool.Path) {
			_ = f.Remove() // a file left behind goes with the run's spool files
		}
	}
	if resp.Spool != nil {
		r.setSpool(resp.Spool)
	} else {
		r.setOutput(resp.Output)
	}
	r.Raw, r.RawFile, r.Stderr, r.Signals = resp.Raw, nil, resp.Stderr, resp.Signals
	r.Network = proxy.Merge(r.Network, resp.Network)
	r.Session = resp.Session
	r.Model = t.Model
	if resp.Model != "" {
		r.Model = resp.Model
	}
	r.ExitCode = nil
	if t.Provider == "command" {
		code := resp.ExitCode
		r.ExitCode = &code
	}
	for i, at := range out.Attempts {
		for _, c := range at.Calls {
			c.Attempt = len(r.Attempts) + i + 1
			r.Requests = append(r.Requests, c)
		}
		r.RequestsOmitted += at.CallsOmitted
	}
	r.Attempts = append(r.Attempts, out.Attempts...)
	r.TTVms, r.TTVSource, r.TTVClaimedMS = 0, "", 0
	if resp.TTV > 0 {
		r.TTVms, r.TTVSource = resp.TTV.Milliseconds(), TTVAgent
		if floor := firstOutputAt(r, out); resp.TTV < floor {
			r.TTVms, r.TTVSource, r.TTVClaimedMS = floor.Milliseconds(), TTVBounded, resp.TTV.Milliseconds()
		}
	}
	r.Usage = r.Usage.Add(out.Usage)
	r.Analysis, r.BudgetExhausted = out.Analysis, out.BudgetExhausted
	r.Error, r.Class, r.Reason, r.EscalationReason = "", "", "", ""
	r.Checks = check.Evaluation{}
	switch {
	case out.Err == nil:
		r.Status = status.Succeeded
	case out.Status == recovery.OutcomeCancelled:
		r.Status = status.Cancelled
	case out.Escalated:
		r.Status, r.EscalationReason = status.Escalated, out.EscalationReason
	default:
		r.Status = status.Failed
	}
	if out.Err != nil {
		r.Error = out.Err.Error()
		r.Class = string(agent.ClassOf(out.Err))
		var ae *agent.Error
		if errors.As(out.Err, &ae) {
			r.Reason = ae.Reason
		}
		// A failed attempt's partial output is kept in the file but is
		// not a candidate unless the agent succeeded or only its checks
		// failed (the output is whole, just not admissible).
		if r.Reason != recovery.ReasonFailedChecks {
			r.setOutput("")
			if resp.Output != "" {
				r.Raw = resp.Output
			}
			if resp.Spool != nil {
				r.Raw, r.RawFile = "", resp.Spool
			}
		}
	}
}

// Where a result's TTVms comes from (Result.TTVSource).
const (
	TTVAgent    = "agent"    // the agent's own claim
	TTVBounded  = "bounded"  // a claim earlier than its first output, raised to it
	TTVMeasured = "measured" // no claim: the measured execution time
)

// firstOutputAt is when the last attempt's answer first appeared, from the
// start of the agent's first attempt (every attempt before it took time
// too); 0 when unknown.
func firstOutputAt(r *Result, out recovery.Outcome) time.Duration {
	first := out.Response.FirstOutput
	if first <= 0 || len(r.Attempts) == 0 {
		return first
	}
	begin, last := r.Attempts[0].Start, r.Attempts[len(r.Attempts)-1].Start
	if begin.IsZero() || last.Before(begin) {
		return first
	}
	return last.Sub(begin) + first
}
