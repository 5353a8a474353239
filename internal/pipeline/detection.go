package pipeline

import (
	"context"
	"fmt"
	"slices"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/detect"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// Threat detection (architecture §4.15): before π*'s result is delivered — the
// pull request, apply, the run's result — the Driver scans it (Scan) and
// acts on what is found by detection.on-finding: a THREAT checkpoint, a
// blocked delivery, or a warning shown with the delivery. A run that
// pauses for another reason is scanned too, its candidate (the result
// Proceed would deliver): the findings are in the checkpoint's context, so
// the human who proceeds has seen them.

// Detection is what threat detection concluded for the run: the ledger
// `run` entry's detection member.
type Detection struct {
	// Agent is the result scanned (π*, or the candidate of a pause).
	Agent string `json:"agent"`
	// Verdict is clean, warn (delivered with findings) or blocked (not
	// delivered); final once the run is recorded.
	Verdict detect.Verdict `json:"verdict"`
	// Findings are what the detectors found, never a secret.
	Findings []detect.Finding `json:"findings"`
	// Usage is the LLM detector's tokens; the run's meter counts them, in
	// the run's totals and the scanned result's.
	Usage agent.Usage `json:"usage"`
}

// maxMessageFindings bounds the findings a run's message lists; all of
// them are in the ledger and optr-selection.json.
const maxMessageFindings = 10

// Scanner scans results for threats: the run's one (Prepared.Scanner),
// whichever of its steps scans.
type Scanner struct {
	Config   *config.Config
	Detector detect.Detector
}

// Scanner returns the run's Scanner, made on first use: the built-in
// detectors, and the LLM detector when the config names one (built like
// every agent of the run, its output redacted). Every scan of the run —
// detection.all's of each candidate, in every selection a mode makes, and
// π*'s — spends from its one bound: the run's detection is bounded in
// all, not per scanner.
func (p *Prepared) Scanner() (*Scanner, error) {
	p.scannerOnce.Do(func() { p.scanner, p.scannerErr = p.newScanner() })
	return p.scanner, p.scannerErr
}

func (p *Prepared) newScanner() (*Scanner, error) {
	cfg := p.Spec.Config
	d := detect.Detector{Redactor: p.agents.secret, Workflow: p.Spec.Workflow, RunID: p.Spec.RunID, Dir: p.Spec.Dir, Bound: detect.NewBound()}
	if name := cfg.Detection.Agent; name != "" {
		a, err := p.agents.get(name)
		if err != nil {
			return nil, fmt.Errorf("detection.agent: %w", err)
		}
		d.Agent = a
	}
	return &Scanner{Config: cfg, Detector: d}, nil
}

// Scan scans the result r of the run o: its output (streamed from its
// spool file when it has one) and its patch (verified against the
// recorded patch_sha256) when agents change code. A patch that cannot be
// read is a finding: what cannot be looked at is not delivered unseen.
func (s *Scanner) Scan(ctx context.Context, o *Outcome, r *executor.Result) (*Detection, error) {
	agentName := r.Agent
	in := detect.Input{Intent: o.Spec.Intent}
	in.Output, _ = r.Excerpt(detect.MaxPromptPart)
	if r.OutputFile != nil {
		f, err := r.OutputFile.Open()
		if err != nil {
			return nil, fmt.Errorf("read the output of %s: %w", agentName, err)
		}
		defer f.Close()
		in.Full = f
	}
	var unread []detect.Finding
	if s.Config.Changes.On() && r.Change != nil && len(r.Change.Files) > 0 {
		patch, err := o.Patch(agentName)
		if err != nil {
			unread = append(unread, detect.Finding{Detector: "patch", Rule: "unreadable", Reason: "the change could not be read to be scanned: " + err.Error()})
		}
		in.Patch = patch
	}
	// The LLM detector's calls are charged to the result it scans.
	res, err := s.Detector.Detect(cost.ForAgent(ctx, agentName), in)
	if err != nil {
		return nil, err
	}
	findings := append(append(res.Findings, unread...), refusals(r)...)
	return &Detection{Agent: agentName, Verdict: detect.Clean, Findings: findings, Usage: res.Usage}, nil
}

// candidate is the result a run would deliver: π*, or for a paused run
// the result Proceed selects (selection's π*, else the best-scoring).
func candidate(rep *report) string {
	switch {
	case rep.Status == status.Completed:
		return rep.Selected
	case rep.Status == status.Paused && rep.Selection.Selected != "":
		return rep.Selection.Selected
	case rep.Status == status.Paused:
		return rep.Selection.Best
	}
	return ""
}

// detect scans the run's candidate and acts on the findings by
// detection.on-finding. A scan that fails blocks the delivery.
func (d *Driver) detect(ctx context.Context, p *Prepared, rep *report) {
	name := candidate(rep)
	if name == "" || (rep.Status == status.Paused && rep.Trigger == checkpoint.TriggerHiccup) {
		return
	}
	if rep.Status == status.Completed && rep.Spec.Config.Changes.On() && rep.refusedChange(name) != "" {
		return // its delivery fails as it is: nothing to ask a human about
	}
	if rep.Detection = rep.scanned[name]; rep.Detection == nil { // all: true scanned it already
		s, err := p.Scanner()
		if err == nil {
			if r := rep.result(name); r != nil {
				rep.Detection, err = s.Scan(ctx, &rep.Outcome, r)
			} else {
				err = fmt.Errorf("no result of %s to scan", name)
			}
		}
		if err != nil {
			rep.Detection = &Detection{Agent: name, Findings: []detect.Finding{{Detector: "scan", Rule: "failed", Reason: "threat detection could not scan the result: " + err.Error()}}}
		}
	}
	found := rep.Detection.Findings
	if len(found) == 0 {
		rep.Detection.Verdict = detect.Clean
		return
	}
	list := detect.Summary(found, maxMessageFindings)
	switch policy := rep.Spec.Config.Detection.OnFinding; {
	case rep.Status == status.Paused: // a human decides; the findings are before them
		rep.Message += fmt.Sprintf("\n\nThreat detection found %d threats in the result of %s, which option 1 would deliver:\n%s", len(found), name, list)
	case policy == config.OnFindingWarn:
		rep.Detection.Verdict = detect.Warn
		rep.Message = joinMessage(rep.Message, fmt.Sprintf("threat detection found %d threats in π* = %s; delivered anyway (detection.on-finding: warn):\n%s", len(found), name, list))
	case policy == config.OnFindingBlock:
		rep.Status, rep.Selected, rep.Detection.Verdict = status.Failed, "", detect.Blocked
		rep.Message = fmt.Sprintf("threat detection found %d threats in π* = %s; nothing was delivered (detection.on-finding: block):\n%s", len(found), name, list)
	default:
		rep.Status, rep.Trigger = status.Paused, checkpoint.TriggerThreat
		rep.Message = fmt.Sprintf("threat detection found %d threats in π* = %s; nothing is delivered until a maintainer decides (detection.on-finding: checkpoint):\n%s", len(found), name, list)
	}
}

// afterDecision applies detection.on-finding: block to a human's Proceed
// at a checkpoint other than THREAT: findings the run was paused with
// still block the delivery.
func afterDecision(rep *report, cp checkpoint.Checkpoint) {
	det := rep.Detection
	if det == nil || len(det.Findings) == 0 || cp.Trigger == checkpoint.TriggerThreat ||
		rep.Status != status.Completed || rep.Selected != det.Agent || rep.Spec.Config.Detection.OnFinding != config.OnFindingBlock {
		return
	}
	rep.Status, rep.Selected = status.Failed, ""
	rep.Message = fmt.Sprintf("%s, but threat detection found %d threats in the result of %s; nothing was delivered (detection.on-finding: block):\n%s",
		rep.Message, len(det.Findings), det.Agent, detect.Summary(det.Findings, maxMessageFindings))
}

// settleVerdict makes the verdict final as the run is recorded: with
// findings, warn when the result was delivered, blocked when not.
func (rep *report) settleVerdict() {
	det := rep.Detection
	if det == nil || len(det.Findings) == 0 {
		return
	}
	det.Verdict = detect.Blocked
	if rep.Status == status.Completed && rep.Selected == det.Agent {
		det.Verdict = detect.Warn
	}
}

// pausedDetection is the detection member of a paused run's checkpoint
// entry (architecture §4.15): with findings the verdict is blocked, since
// nothing is delivered until a maintainer answers; the run entry that
// follows the answer records the final verdict (settleVerdict).
func (det *Detection) pausedDetection() map[string]any {
	m := det.ledgerDetection()
	switch {
	case len(det.Findings) > 0:
		m["verdict"] = string(detect.Blocked)
	case det.Verdict == "":
		m["verdict"] = string(detect.Clean)
	}
	return m
}

// ledgerDetection is the `run` entry's detection member.
func (det *Detection) ledgerDetection() map[string]any {
	findings := make([]any, 0, len(det.Findings))
	for _, f := range det.Findings {
		findings = append(findings, map[string]any{
			"detector": f.Detector, "rule": f.Rule, "path": f.Path, "line": int64(f.Line), "reason": f.Reason,
		})
	}
	return map[string]any{"verdict": string(det.Verdict), "findings": findings}
}

func joinMessage(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// DetectionConstraint names the verdict detection.all adds to every
// candidate's checks.
const DetectionConstraint = "detection"

// scanAll scans every result of results with output before it is chosen
// among (detection.all), once per run: a result with findings that would
// not be delivered (on-finding checkpoint or block) fails the hard
// DetectionConstraint and is not admissible; with warn it passes, its
// findings kept for π*'s verdict. The verdict is this process's own: one
// a result brought along (a matrix task's result.json, written by a job
// that ran the agent's code) is replaced. The scans are kept, so none is
// made twice.
func (p *Prepared) scanAll(ctx context.Context, rep *report, results []*executor.Result) {
	var (
		s   *Scanner
		err error
	)
	block := rep.Spec.Config.Detection.OnFinding != config.OnFindingWarn
	for _, r := range results {
		if !r.HasOutput() || rep.scanned[r.Agent] != nil {
			continue
		}
		if s == nil && err == nil {
			s, err = p.Scanner()
		}
		var det *Detection
		if err == nil {
			det, err = s.Scan(ctx, &rep.Outcome, r)
		}
		if err != nil {
			det = &Detection{Agent: r.Agent, Findings: []detect.Finding{{Detector: "scan", Rule: "failed", Reason: "threat detection could not scan the result: " + err.Error()}}}
			if s != nil {
				err = nil // the next result may scan; a scanner that could not be made cannot
			}
		}
		if rep.scanned == nil {
			rep.scanned = map[string]*Detection{}
		}
		rep.scanned[r.Agent] = det
		v := check.Verdict{Constraint: DetectionConstraint, Hard: true, Status: status.Passed, Reason: "threat detection found nothing"}
		if n := len(det.Findings); n > 0 {
			v.Reason = fmt.Sprintf("threat detection found %d: %s", n, det.Findings[0])
			if block {
				v.Status = status.Failed
			}
		}
		verdicts := slices.DeleteFunc(slices.Clone(r.Checks.Verdicts), func(v check.Verdict) bool { return v.Constraint == DetectionConstraint })
		r.Checks = check.Summarize(append(verdicts, v))
	}
	if !slices.ContainsFunc(rep.ConstraintInfo, func(c ConstraintInfo) bool { return c.Name == DetectionConstraint }) {
		rep.ConstraintInfo = append(rep.ConstraintInfo, ConstraintInfo{Name: DetectionConstraint, Hard: true, Verified: true})
	}
}
