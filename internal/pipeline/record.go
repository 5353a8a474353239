package pipeline

import (
	"io"
	"time"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/selection"
	"github.com/optr-dev/optr/internal/status"
)

// conclude turns the selection into the run's status: completed when π*
// was chosen, failed when nothing can be, and paused when a human must
// decide (rep.Trigger says why; the driver raises the checkpoint). With
// selection.on-no-admissible: checkpoint, an exhausted budget (BUDGET),
// recovery running out of options with nothing produced (HICCUP) and no
// admissible result (NO_ADMISSIBLE) pause; checkpoints.before-commit pauses
// every run that selected something (APPROVAL).
func conclude(rep *report) {
	if m, ok := rep.concluder.(Concluder); ok && rep.aborted == nil {
		c := m.Conclude()
		rep.Status, rep.Trigger, rep.Selected, rep.Message = c.Status, c.Trigger, c.Selected, c.Message
		if c.Result != "" {
			rep.ResultPath = rep.Spec.DisplayPath(c.Result)
		}
		return
	}
	cfg := rep.Spec.Config
	sel := rep.Selection
	rep.Selected, rep.Trigger = sel.Selected, ""
	ask := cfg.Selection.OnNoAdmissible == config.NoAdmissibleCheckpoint
	switch {
	case rep.aborted != nil:
		rep.Status, rep.Selected = status.Failed, ""
		rep.Message = rep.aborted.Error()
		if budgetSpent(rep.Results) {
			// The agents failed because the budget refused their calls:
			// that is the cause, named first.
			rep.Message = "the run's budget stopped its agents (" + rep.meter.Spent() + "); " + rep.Message
		}
	case sel.Outcome == selection.NoCandidate && rep.NothingUsable() != nil:
		// No agent can work here (no CLI, no key, Copilot refused the
		// token): a checkpoint would ask a human what only a maintainer's
		// setting can change.
		rep.Status, rep.Message = status.Failed, rep.NothingUsable().Error()
	case ask && budgetSpent(rep.Results):
		rep.Status, rep.Trigger = status.Paused, checkpoint.TriggerBudget
		rep.Message = "the run's budget ran out (" + rep.meter.Spent() + "), so no further attempt was launched; a human must decide"
	case ask && sel.Outcome == selection.NoCandidate && escalated(rep.Results):
		rep.Status, rep.Trigger = status.Paused, checkpoint.TriggerHiccup
		rep.Message = "no agent produced output and recovery ran out of options; a human must decide"
	case sel.Selected != "" && cfg.Checkpoints.BeforeCommit:
		rep.Status, rep.Trigger = status.Paused, checkpoint.TriggerApproval
		rep.Message = "π* = " + sel.Selected + " waits for approval (checkpoints.before-commit)"
	case sel.Selected != "":
		rep.Status, rep.Message = status.Completed, ""
		if sel.Outcome == selection.LeastBad {
			rep.Message = "no result passed every hard constraint; the least bad one was selected (selection.on-no-admissible: least-bad)"
		}
	case budgetSpent(rep.Results):
		rep.Status, rep.Message = status.Failed, "the run's budget stopped its agents ("+rep.meter.Spent()+") before any result could be selected"
	case sel.Outcome == selection.NoCandidate:
		rep.Status, rep.Message = status.Failed, "no agent produced output"
	case ask:
		rep.Status, rep.Trigger = status.Paused, checkpoint.TriggerNoAdmissible
		rep.Message = "no result passed every hard constraint; a human must decide"
	default:
		rep.Status, rep.Message = status.Failed, "no result passed every hard constraint (selection.on-no-admissible: fail)"
	}
}

func budgetSpent(results []*executor.Result) bool {
	for _, r := range results {
		if r.BudgetExhausted {
			return true
		}
	}
	return false
}

func escalated(results []*executor.Result) bool {
	for _, r := range results {
		if r.Status == status.Escalated {
			return true
		}
	}
	return false
}

// SelectionFile is optr-selection.json: π*, how it was chosen, and the
// whole score table with every constraint verdict.
type SelectionFile struct {
	Run         string                     `json:"run"`
	Workflow    string                     `json:"workflow"`
	Status      status.Status              `json:"status"`
	Selected    string                     `json:"selected"`
	Outcome     selection.Outcome          `json:"outcome"`
	Best        string                     `json:"best,omitempty"`
	TieBreak    string                     `json:"tie_break,omitempty"`
	Policy      string                     `json:"on_no_admissible"`
	Weights     config.Weights             `json:"weights"`
	Constraints []ConstraintInfo           `json:"constraints"`
	Table       []TableRow                 `json:"table"`
	Verdicts    map[string][]check.Verdict `json:"verdicts"`
	Message     string                     `json:"message,omitempty"`
	Detection   *Detection                 `json:"detection,omitempty"`
}

// ConstraintInfo describes one constraint of the run.
type ConstraintInfo struct {
	Name     string `json:"name"`
	Hard     bool   `json:"hard"`
	Verified bool   `json:"verified"`
}

func constraintInfo(cs []check.Constraint) []ConstraintInfo {
	out := make([]ConstraintInfo, 0, len(cs))
	for _, c := range cs {
		out = append(out, ConstraintInfo{Name: c.Name, Hard: c.Hard, Verified: c.Checker != nil})
	}
	return out
}

// TableRow is one agent's line in the score table.
type TableRow struct {
	selection.Row
	Status     status.Status `json:"status"`
	Invariants []string      `json:"invariants"`
	Failed     []string      `json:"failed"`
	TTVms      int64         `json:"ttv_ms"`
	// TTVClaimedMS is the agent's own TTV claim when it was earlier than
	// its first output and TTVms was bounded to that.
	TTVClaimedMS int64 `json:"ttv_claimed_ms,omitempty"`
	ExecMS       int64 `json:"exec_ms"`
	// Tokens and CostUSD are everything spent for the agent: its
	// attempts, analyses and the judges of its output — the known part,
	// null when nothing of it is known (a command agent outside the model
	// gateway; for the cost, an unpriced model too). TokensUnknown and
	// CostUnknown say that some part of them is unknown.
	Tokens        *int64   `json:"tokens"`
	CostUSD       *float64 `json:"cost_usd"`
	TokensUnknown bool     `json:"tokens_unknown,omitempty"`
	CostUnknown   bool     `json:"cost_unknown,omitempty"`
}

// Table joins the scores with each agent's result, in rank order.
func (o *Outcome) Table() []TableRow {
	byAgent := make(map[string]*executor.Result, len(o.Results))
	for _, r := range o.Results {
		byAgent[r.Agent] = r
	}
	rows := make([]TableRow, 0, len(o.Selection.Rows))
	for _, row := range o.Selection.Rows {
		r := byAgent[row.Agent]
		tr := TableRow{Row: row}
		if r != nil {
			tr.Status, tr.TTVms, tr.TTVClaimedMS, tr.ExecMS = r.Status, r.TTVms, r.TTVClaimedMS, r.ExecMS
			spent := o.Spent(r.Agent)
			tr.Tokens, tr.TokensUnknown = spent.TokensOrNil(), !spent.TokensKnown()
			_, costKnown := spent.Cost()
			tr.CostUSD, tr.CostUnknown = spent.USDOrNil(), !costKnown
			tr.Invariants = r.Checks.Invariants
			tr.Failed = failed(r.Checks.Verdicts)
		}
		rows = append(rows, tr)
	}
	return rows
}

func failed(vs []check.Verdict) []string {
	var out []string
	for _, v := range vs {
		if v.Status == status.Failed {
			out = append(out, v.Constraint)
		}
	}
	return out
}

// writeDecision writes what the run decided: optr-selection.json, and
// result.md when something was selected (rep.ResultPath names it).
func (rep *report) writeDecision() error {
	run := rep.run
	if err := run.WriteJSON(datalake.FileSelection, rep.SelectionFile()); err != nil {
		return err
	}
	if r := rep.result(rep.Selected); r != nil {
		write := func(w io.Writer) error { _, err := io.WriteString(w, r.Output); return err }
		if r.OutputFile != nil { // copied from its spool file, never held whole
			write = func(w io.Writer) error { _, err := r.OutputFile.WriteTo(w); return err }
		}
		if err := run.WriteFileFrom(datalake.FileResult, write); err != nil {
			return err
		}
		rep.ResultPath = rep.Spec.DisplayPath(run.Path(datalake.FileResult))
	}
	return nil
}

// SelectionFile builds the content of optr-selection.json.
func (o *Outcome) SelectionFile() SelectionFile {
	sf := SelectionFile{
		Run: o.Spec.RunID, Workflow: o.Spec.Workflow, Status: o.Status,
		Selected: o.Selected, Outcome: o.Selection.Outcome, Best: o.Selection.Best, TieBreak: o.Selection.TieBreak,
		Policy: o.Spec.Config.Selection.OnNoAdmissible, Weights: o.Spec.Config.Selection.Weights,
		Table: o.Table(), Verdicts: map[string][]check.Verdict{}, Message: o.Message, Detection: o.Detection,
	}
	sf.Constraints = o.ConstraintInfo
	for _, r := range o.Results {
		sf.Verdicts[r.Agent] = r.Checks.Verdicts
	}
	return sf
}

// LedgerDraft is the run's `run` ledger entry (architecture §4.3).
func (o *Outcome) LedgerDraft(now time.Time) ledger.Draft {
	score := map[string]float64{}
	admissible := map[string]bool{}
	for _, row := range o.Selection.Rows {
		score[row.Agent], admissible[row.Agent] = row.Score, row.Admissible
	}
	results := make([]any, 0, len(o.Results))
	for _, r := range o.Results {
		inv := r.Checks.Invariants
		if inv == nil {
			inv = []string{}
		}
		res := map[string]any{
			"agent":         r.Agent,
			"status":        string(r.Status),
			"admissible":    admissible[r.Agent],
			"invariants":    toAny(inv),
			"ttv_ms":        r.TTVms,
			"exec_ms":       r.ExecMS,
			"score":         score[r.Agent],
			"output_sha256": r.OutputSHA256,
			"attempts":      int64(len(r.Attempts)),
		}
		addSpend(res, o.Spent(r.Agent), "tokens_in", "tokens_out")
		if r.TTVClaimedMS > 0 {
			res["ttv_claimed_ms"] = r.TTVClaimedMS
		}
		if r.Model != "" { // the model that answered (architecture §4.19: standings by model)
			res["model"] = r.Model
		}
		if r.Change != nil { // the result's code change (architecture §4.12)
			res["patch_sha256"] = r.Change.PatchSHA256
			res["files_changed"] = int64(len(r.Change.Files))
			res["lines_added"] = int64(r.Change.Added)
			res["lines_removed"] = int64(r.Change.Removed)
		}
		results = append(results, res)
	}
	names := make([]any, 0, len(o.ConstraintInfo))
	for _, c := range o.ConstraintInfo {
		names = append(names, c.Name)
	}
	fields := map[string]any{
		"mode":          modeName(o.Mode),
		"selected":      o.Selected,
		"status":        string(o.Status),
		"intent_sha256": executor.SHA256Hex(o.Spec.Intent),
		"constraints":   names,
		"results":       results,
	}
	if o.Spec.Commit != "" {
		fields["commit"] = o.Spec.Commit
	}
	o.addTotals(fields)
	if n := o.pullRequest(); n > 0 {
		fields["pull_request"] = int64(n)
		fields["iteration"] = int64(max(o.Spec.Iteration, 1))
	}
	if o.Detection != nil {
		fields["detection"] = o.Detection.ledgerDetection()
	}
	if s := o.Sandbox; s.Mode != "" {
		sb := map[string]any{"mode": s.Mode, "env": s.Env, "fs": s.FS, "net": s.Net, "scope": s.Scope, "user": s.User}
		if s.Groups != "" {
			sb["groups"] = s.Groups
		}
		fields["sandbox"] = sb
	}
	for k, v := range o.ModeFields {
		fields[k] = v
	}
	return ledger.Draft{Kind: "run", Run: o.Spec.RunID, Workflow: o.Spec.Workflow, Time: now.UTC(), Fields: fields}
}

// pullRequest is the pull request the run is about: the one it opened,
// or the one it iterates on (delivered or not); 0 when none.
func (o *Outcome) pullRequest() int {
	if o.Delivery.PullRequest > 0 {
		return o.Delivery.PullRequest
	}
	return o.Spec.PullRequest
}

// addTotals adds the run's totals to the members of its run or checkpoint
// entry (architecture §4.17): tokens and cost_usd, the known part of each
// (null when nothing of it is known), and tokens_unknown / cost_unknown
// when some part is not. They count every call of the run, judges and
// analyses included, so that a budget check sums them without reading the
// results.
func (o *Outcome) addTotals(fields map[string]any) {
	addSpend(fields, o.Total(), "tokens", "")
}

// addSpend adds what s used and cost to a ledger object: its tokens (in
// and out, under the given names; all of them under in when out is ""),
// cost_usd, each the known part or null when nothing of it is known
// (unknown is never 0), and tokens_unknown and cost_unknown when a part
// is not known.
func addSpend(obj map[string]any, s cost.Spend, in, out string) {
	u := s.Usage
	switch {
	case u.IsUnknown() && out == "":
		obj[in] = nil
	case u.IsUnknown():
		obj[in], obj[out] = nil, nil
	case out == "":
		obj[in] = u.Total()
	default:
		obj[in], obj[out] = u.InputTokens, u.OutputTokens
	}
	if !u.Known() {
		obj["tokens_unknown"] = true
	}
	obj["cost_usd"] = nil
	if usd := s.USDOrNil(); usd != nil {
		obj["cost_usd"] = *usd
	}
	if _, ok := s.Cost(); !ok {
		obj["cost_unknown"] = true
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
