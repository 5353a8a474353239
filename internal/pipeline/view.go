package pipeline

import (
	"slices"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/progress"
	"github.com/optr-dev/optr/internal/spool"
	"github.com/optr-dev/optr/internal/status"
	"github.com/optr-dev/optr/internal/worktree"
)

// View turns the report into what package progress renders: the terminal
// table, the progress comment and the job summary.
func (o *Outcome) View() progress.View {
	v := progress.View{
		RunID: o.Spec.RunID, Workflow: o.Spec.Workflow, Status: o.Status,
		Selected: o.Selected, ResultPath: o.ResultPath, LedgerHash: o.LedgerHash,
		CheckpointID: o.CheckpointID, Message: o.Message, Started: o.Started, Finished: o.Finished,
		Details:     o.Details,
		PullRequest: o.Delivery.PullRequest, PullRequestURL: o.Delivery.URL, TieBreak: o.Selection.TieBreak,
		SandboxNotes: o.SandboxNotes,
	}
	for _, c := range o.ConstraintInfo {
		if !c.Verified {
			v.Unverified = append(v.Unverified, c.Name)
		}
	}
	if o.Sandbox.Mode != "" {
		v.Sandbox = o.Sandbox.String()
	}
	if det := o.Detection; det != nil {
		v.Detection = &progress.Detection{Verdict: string(det.Verdict), Agent: det.Agent}
		for _, f := range det.Findings {
			v.Detection.Findings = append(v.Detection.Findings, f.String())
		}
	}
	noResult := map[string]string{}  // agent → why it gave no result
	refused := map[string][]string{} // agent → the hosts the sandbox refused it
	changes := map[string]string{}   // agent → why its change is not admissible
	for _, r := range o.Results {
		if r.Status == status.Succeeded {
			// A failed agent's error names what was refused first.
			refused[r.Agent] = refusedHosts(r)
		}
		if r.Status != status.Succeeded {
			noResult[r.Agent] = r.Cause()
		}
		for _, vd := range r.Checks.Verdicts {
			if vd.Constraint == worktree.VerdictName && vd.Status == status.Failed && vd.Reason != "" {
				changes[r.Agent] = vd.Reason
			}
		}
		v.Agents = append(v.Agents, agentLine(r))
		if r.Agent == o.Selected {
			// The comment shows at most 65,536 characters of it; an
			// output held on disk is not read back for that.
			v.Result, _ = r.Excerpt(spool.ExcerptMax)
		}
	}
	for _, t := range o.Table() {
		failed := slices.Clone(t.Failed)
		if i := slices.Index(failed, worktree.VerdictName); i >= 0 && changes[t.Agent] != "" {
			// "changes" names no cause; its reason does ("touches
			// optr's ledger: …").
			failed[i] = changes[t.Agent]
		}
		v.Table = append(v.Table, progress.Row{
			Agent: t.Agent, Admissible: t.Admissible, Invariants: t.Invariants, Failed: append(failed, refused[t.Agent]...),
			TTVms: t.TTVms, TTVClaimedMS: t.TTVClaimedMS, ExecMS: t.ExecMS, Score: t.Score,
			Tokens: t.Tokens, CostUSD: t.CostUSD, TokensUnknown: t.TokensUnknown, CostUnknown: t.CostUnknown,
			Error: noResult[t.Agent],
		})
	}
	return v
}

func agentLine(r *executor.Result) progress.AgentLine {
	note := r.Error
	if r.EscalationReason != "" {
		note = r.EscalationReason + ": " + r.Error
	}
	return progress.AgentLine{
		Name: r.Agent, Provider: r.Provider, State: r.Status,
		Elapsed: time.Duration(r.ExecMS) * time.Millisecond, Attempts: len(r.Attempts), Note: firstLine(note),
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Total is everything the run spent: every agent's attempts and every
// judge, analysis and detection (the Action's `tokens` and `cost-usd`
// outputs). Without a meter (a report rebuilt from results alone) it is
// the sum of the results' Spent.
func (o *Outcome) Total() cost.Spend {
	if o.spend != nil {
		return o.spend.Total()
	}
	var t cost.Spend
	for _, r := range o.Results {
		if r.Spent != nil {
			t = t.Add(*r.Spent)
		}
	}
	return t
}

// Spent is everything spent for the result named agent: its attempts and
// analyses, the judges and detections of its output.
func (o *Outcome) Spent(agent string) cost.Spend {
	if o.spend != nil {
		return o.spend.Agent(agent)
	}
	if r := o.result(agent); r != nil && r.Spent != nil {
		return *r.Spent
	}
	return cost.Spend{}
}
