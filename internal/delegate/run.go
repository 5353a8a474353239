package delegate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// FileInvocationPlan and FileOverview are files of a spec folder.
const (
	FileInvocationPlan = ".invocation-plan.txt"
	FileOverview       = "OVERVIEW.md"
	// DirCandidates holds what specialists write, each in a folder of its
	// own, <NNN>_<slug>.<agent>/<NNN>_<slug>.md (its OPTR_REPORT_PATH):
	// the reports of every candidate when candidates > 1, of which the
	// selected one is copied to the topic's planned path; with one
	// candidate, the report of a command specialist, which is moved to
	// the planned path once the specialists are done.
	DirCandidates = ".candidates"
)

// candidate is one specialist invocation of a topic.
type candidate struct {
	agent string // the configured agent
	name  string // the result name, <agent>.<NNN>
	path  string // absolute: the planned path (an LLM's, which optr writes), or a candidate path
}

// planned is one topic with its paths and specialists.
type planned struct {
	n     int
	topic Topic
	rel   string // the report, spec-folder-relative (reports/NNN_<slug>.md)
	path  string // the report, absolute
	cands []candidate
}

func (p planned) names() []string {
	out := make([]string, len(p.cands))
	for i, c := range p.cands {
		out[i] = c.name
	}
	return out
}

// Run runs one delegate run, the ten steps of architecture §4.9 in order. The
// returned error is nil for every outcome the barrier decides, a failed
// coordinator and a watcher's abort included (Outcome.Status says failed);
// it is an input error before anything is written, or a failure to write
// the run's files, or a cancelled context, in which case the Outcome holds
// what was done.
func Run(ctx context.Context, in Input) (*Outcome, error) {
	r, err := start(in)
	if err != nil {
		return nil, err
	}
	defer r.release()
	return r.o, r.run(ctx)
}

// start checks in and takes step 1, the spec folder, for Run and Assemble.
func start(in Input) (*runner, error) {
	if err := in.check(); err != nil {
		return nil, fmt.Errorf("delegate: %w", err)
	}
	root, err := filepath.Abs(in.Datalake)
	if err != nil {
		return nil, fmt.Errorf("delegate: datalake: %w", err)
	}
	dir, err := Claim(root, in.Workflow)
	if err != nil {
		return nil, fmt.Errorf("delegate: %w", err)
	}
	// Until the run ends the folder names this process, so that a run
	// killed meanwhile is marked abandoned at the next start.
	if err := datalake.MarkRunning(dir, in.Workflow, in.RunID); err != nil {
		return nil, fmt.Errorf("delegate: %w", err)
	}
	o := &Outcome{SpecDir: dir, Spec: slashRel(root, dir), Threshold: in.Pipeline.Threshold}
	return &runner{in: in, root: root, o: o}, nil
}

// release records that this process is done with the spec folder. A
// marker it could not remove is taken for a killed run's at a later start,
// which then marks the folder abandoned: said there, never lost.
func (r *runner) release() { _ = datalake.Finished(r.o.SpecDir) }

// runner carries one run's state between its steps.
type runner struct {
	in   Input
	root string
	o    *Outcome
	errs []error
}

func (r *runner) run(ctx context.Context) error {
	// Step 2: the plan.
	topics, execErr := r.plan(ctx)
	if topics == nil {
		r.o.Status = status.Failed
		r.o.Message = "the coordinator produced no usable plan: " + r.o.CoordinatorFailure.Message
		return r.finish(execErr)
	}
	// Step 3: paths and the invocation plan, before any specialist starts.
	plan := r.assign(topics)
	if err := r.writeInvocationPlan(plan); err != nil {
		return errors.Join(execErr, err)
	}
	// Steps 4 and 5: the specialists and their reports.
	aborted, err := r.research(ctx, plan)
	execErr = errors.Join(execErr, err)
	// Step 6: the barrier.
	r.barrier(aborted)
	// Step 7: OVERVIEW.md.
	if err := r.writeOverview(); err != nil {
		r.errs = append(r.errs, err)
	}
	return r.finish(execErr)
}

// finish takes steps 8 to 10: errors.jsonl, the summary, the ledger members.
func (r *runner) finish(execErr error) error {
	r.appendErrors()
	r.o.Summary, r.o.SummaryText = summarize(r.in, r.o), summarizeText(r.in, r.o)
	r.o.Ledger = ledgerMembers(r.o)
	return errors.Join(append([]error{execErr}, r.errs...)...)
}

// plan runs the coordinator (step 2) and returns the topics, nil when it
// failed (then o.CoordinatorFailure says why).
func (r *runner) plan(ctx context.Context) ([]Topic, error) {
	name := r.in.Pipeline.Coordinator
	llm := r.in.isLLM(name)
	t, err := r.in.Task(name)
	if err != nil {
		r.o.CoordinatorFailure = &Failure{Type: ReasonCoordinatorError, Message: fmt.Sprintf("build the coordinator %s: %v", name, err), Hint: hintFor(ReasonCoordinatorError), Agent: name}
		return nil, nil
	}
	t.Agent = coordinator{Agent: t.Agent, llm: llm, maxTopics: r.in.Pipeline.MaxTopics,
		brief: coordinatorBrief(r.in.Intent, r.in.Pipeline.MaxTopics, llm)}
	opts := r.options([]executor.Task{t})
	opts.Constraints, opts.CheckDuringRecovery = nil, false // the plan is not the run's deliverable
	results, err := executor.Run(ctx, opts)
	if len(results) == 0 {
		r.o.CoordinatorFailure = &Failure{Type: ReasonCoordinatorError, Message: fmt.Sprintf("the coordinator %s did not run: %v", name, err), Hint: hintFor(ReasonCoordinatorError), Agent: name}
		return nil, err
	}
	res := results[0]
	r.o.Coordinator = res
	r.o.Results = append(r.o.Results, res)
	if res.Status == status.Succeeded {
		if topics, perr := ParsePlan(res.Output, llm, r.in.Pipeline.MaxTopics); perr == nil {
			return topics, err
		}
	}
	f := resultFailure(res)
	if f.Type == "" || f.Type == "specialist_failed" {
		f.Type = ReasonCoordinatorError
	}
	f.Hint = hintFor(f.Type)
	r.o.CoordinatorFailure = &f
	return nil, err
}

// options are the base executor options for tasks.
func (r *runner) options(tasks []executor.Task) executor.Options {
	opts := r.in.Exec
	opts.Tasks = tasks
	opts.Request.Intent = r.in.Intent
	opts.Spares, opts.Synthesizer = nil, nil
	return opts
}

// assign gives topic k its report path reports/NNN_<slug>.md and its
// specialists: candidate j of topic k is agents[(k+j) mod len(agents)], so
// with one candidate topic k goes to agents[k mod len] (step 3). A
// specialist that writes its report itself (a command specialist), and
// every candidate when there are several, gets a path in a folder of its
// own (see makeCandidateFolders).
func (r *runner) assign(topics []Topic) []planned {
	agents := r.in.Pipeline.Agents
	several := r.in.Pipeline.Candidates > 1
	out := make([]planned, len(topics))
	for k, t := range topics {
		nnn := fmt.Sprintf("%03d", k+1)
		base := nnn + "_" + Slug(t.Topic)
		p := planned{n: k + 1, topic: t, rel: DirReports + "/" + base + ".md"}
		p.path = filepath.Join(r.o.SpecDir, DirReports, base+".md")
		r.o.reports = append(r.o.reports, p.path)
		for j := range r.in.Pipeline.Candidates {
			a := agents[(k+j)%len(agents)]
			c := candidate{agent: a, name: a + "." + nnn, path: p.path}
			if several || !r.in.isLLM(a) {
				c.path = filepath.Join(r.o.SpecDir, DirCandidates, base+"."+a, base+".md")
			}
			if several { // one candidate's report is moved to p.path
				r.o.reports = append(r.o.reports, c.path)
			}
			p.cands = append(p.cands, c)
		}
		out[k] = p
	}
	return out
}

// makeCandidateFolders makes the candidates' folder and a folder in it for
// each report a specialist writes itself, before any specialist starts. A
// command specialist may write the folder of its report (the sandbox
// grants it, as its report goes there): had two specialists one folder,
// one could rewrite or replace the other's report before it is judged, to
// break another topic or to win its own against a competing candidate. So
// reports/ is written by optr alone.
func (r *runner) makeCandidateFolders(plan []planned) error {
	made := false
	for _, p := range plan {
		for _, c := range p.cands {
			if c.path == p.path {
				continue
			}
			if !made {
				if err := os.Mkdir(filepath.Join(r.o.SpecDir, DirCandidates), 0o755); err != nil {
					return fmt.Errorf("create the candidates' folder: %w", err)
				}
				made = true
			}
			if err := os.Mkdir(filepath.Dir(c.path), 0o755); err != nil {
				return fmt.Errorf("create the folder of %s's report: %w", c.name, err)
			}
		}
	}
	return nil
}

// moveReport moves the report a topic's only specialist wrote in its own
// folder to the topic's planned path, valid or not, as a report at the
// planned path is kept (step 10): so with one candidate the spec folder
// holds what it held before specialists had folders of their own. The
// emptied folders are removed; one the specialist left more in stays, and
// Keep names what is in it. Nothing runs that could write the folder: the
// specialists are done. A report that is not a regular file is not moved.
func (r *runner) moveReport(p planned) error {
	if len(p.cands) != 1 || p.cands[0].path == p.path {
		return nil
	}
	c := p.cands[0]
	// Not there, or not a file: the specialist failed its topic for it.
	if fi, err := os.Lstat(c.path); err == nil && fi.Mode().IsRegular() {
		if err := os.Rename(c.path, p.path); err != nil {
			return fmt.Errorf("move the report of topic %03d to %s: %w", p.n, p.rel, err)
		}
	}
	if os.Remove(filepath.Dir(c.path)) == nil {
		_ = os.Remove(filepath.Dir(filepath.Dir(c.path))) // the last one empties it
	}
	return nil
}

// research runs every specialist in parallel (step 4) and judges each
// topic's reports (step 5). aborted is the watcher's abort, with its
// reason, when it aborted the run.
func (r *runner) research(ctx context.Context, plan []planned) (aborted, err error) {
	track := newTracker(r.o.Spec, plan, r.in.OnProgress)
	if err := r.makeCandidateFolders(plan); err != nil {
		return nil, err
	}
	var tasks []executor.Task
	var topicOf []int // by task: the topic's index in plan
	for k, p := range plan {
		for _, c := range p.cands {
			topicOf = append(topicOf, k)
			t, terr := r.in.Task(c.agent)
			if terr != nil {
				return nil, fmt.Errorf("build specialist %s: %w", c.agent, terr)
			}
			llm := r.in.isLLM(c.agent)
			t.Agent = &specialist{Agent: t.Agent, name: c.name, llm: llm, topic: p.topic, path: c.path,
				brief: specialistBrief(r.in.Intent, p.topic, c.path, llm), dir: r.in.Dir, redact: r.in.Redact}
			t.Configured = c.agent
			tasks = append(tasks, t)
		}
	}
	opts := r.options(tasks)
	opts.Outlook = thresholdOutlook(topicOf, len(plan), r.o.Threshold)
	base := opts.OnEvent
	opts.OnEvent = func(ev executor.Event) {
		if base != nil {
			base(ev)
		}
		track.event(ev)
	}
	track.start()
	results, err := executor.Run(ctx, opts)
	if errors.Is(err, escalation.ErrAbort) {
		aborted = escalation.ErrAbort
		if ae := escalation.AbortOf(err); ae != nil {
			aborted = ae
		}
		err = nil
	}
	r.o.Results = append(r.o.Results, results...)
	i := 0
	for _, p := range plan {
		n := len(p.cands)
		if i+n > len(results) {
			break
		}
		r.o.Topics = append(r.o.Topics, r.judge(ctx, p, results[i:i+n]))
		i += n
	}
	track.final(r.o)
	return aborted, err
}

// judge decides one topic from its specialists' results and puts the report
// that counts at the planned path when optr writes it (an LLM's answer, a
// selected candidate).
func (r *runner) judge(ctx context.Context, p planned, results []*executor.Result) TopicResult {
	tr := TopicResult{N: p.n, Topic: p.topic, Path: slashRel(r.root, p.path), Agents: p.names(), Agent: p.cands[0].name}
	if err := r.moveReport(p); err != nil {
		r.errs = append(r.errs, err)
		f := Failure{Type: "report_not_written", Message: err.Error(), Agent: p.cands[0].name}
		tr.Failure = &f
		return tr
	}
	chosen := results[0]
	switch {
	case len(results) == 1 && r.in.Choose != nil:
		// Nothing to choose, but the one report is judged with its
		// verdicts settled as a candidate's are (detection.all).
		r.in.Choose(ctx, results, selFor(r.in.Config.Selection))
	case len(results) > 1:
		sel := r.in.Choose(ctx, results, selFor(r.in.Config.Selection))
		tr.Selection = &sel
		chosen = nil
		for _, res := range results {
			if res.Agent == sel.Selected {
				chosen = res
			}
		}
		if chosen == nil {
			tr.Failure = candidatesFailure(results)
			return tr
		}
	}
	tr.Agent = chosen.Agent
	if !(chosen.Status == status.Succeeded && chosen.HasOutput() && chosen.Checks.Admissible) {
		f := resultFailure(chosen)
		tr.Failure = &f
		return tr
	}
	meta, err := Validate(chosen.Output, p.topic.Topic)
	if err != nil { // the specialist wrapper validated it already
		f := Failure{Type: ReasonFrontmatter, Message: err.Error(), Agent: chosen.Agent}
		tr.Failure = &f
		return tr
	}
	if len(results) > 1 || r.in.isLLM(chosen.ConfiguredAgent()) {
		// optr writes the report: no specialist could write reports/.
		if err := datalake.WriteOnce(p.path, []byte(chosen.Output)); err != nil {
			r.errs = append(r.errs, fmt.Errorf("write the report of topic %03d: %w", p.n, err))
			f := Failure{Type: "report_not_written", Message: err.Error(), Agent: chosen.Agent}
			tr.Failure = &f
			return tr
		}
	}
	tr.Valid, tr.Meta, tr.SHA256, tr.Bytes = true, meta, chosen.OutputSHA256, len(chosen.Output)
	tr.Failure = nil
	return tr
}

// thresholdOutlook is the outlook of the specialists' fan-out (task i
// works on topic topicOf[i] of planned): the run can still succeed while
// enough topics can still get a valid report to reach the threshold. A
// topic is lost once every specialist run of it failed; one still queued,
// running or with an output counts as possible.
func thresholdOutlook(topicOf []int, planned int, threshold float64) func(executor.Standing) escalation.Outlook {
	return func(s executor.Standing) escalation.Outlook {
		alive := make([]bool, planned)
		for i, st := range s.Tasks {
			if st != status.Failed {
				alive[topicOf[i]] = true
			}
		}
		possible := 0
		for _, a := range alive {
			if a {
				possible++
			}
		}
		st, rate := Barrier(possible, planned, threshold)
		why := fmt.Sprintf("%d of %d topics have failed (%d of %d specialist runs failed, %d running, %d queued), so at most %d of %d reports can be valid (%s%%) against the threshold of %s%%",
			planned-possible, planned, s.Count(status.Failed), len(s.Tasks), s.Count(status.Running), s.Count(status.Queued),
			possible, planned, Percent(rate), Percent(threshold))
		return escalation.Outlook{Open: st != status.Failed, Why: why}
	}
}

// barrier applies the hard barrier and the threshold (step 6).
func (r *runner) barrier(aborted error) {
	o := r.o
	for _, t := range o.Topics {
		if t.Valid {
			o.Valid++
			o.MetadataBytes += t.Meta.Bytes
			o.ReportBytes += t.Bytes
		}
	}
	planned := len(o.Topics)
	o.Status, o.SuccessRate = Barrier(o.Valid, planned, o.Threshold)
	if o.ReportBytes > 0 {
		o.ContextReduction = 1 - float64(o.MetadataBytes)/float64(o.ReportBytes)
	}
	if aborted != nil {
		o.Status = status.Failed // the threshold could no longer be reached
	}
	o.Message = barrierMessage(o)
	if aborted != nil {
		o.Message = aborted.Error() + "; " + o.Message
	}
}

// Barrier returns the status of a run with valid of planned reports under
// threshold, and the success rate: below the threshold the run fails; from
// it on the run completes, with a warning below 1 (Outcome.Warned). A run
// that planned nothing fails.
func Barrier(valid, planned int, threshold float64) (status.Status, float64) {
	if planned <= 0 {
		return status.Failed, 0
	}
	rate := float64(valid) / float64(planned)
	const eps = 1e-9 // 0.3 × 10 must reach 3 valid reports
	if valid >= planned || rate+eps >= threshold {
		return status.Completed, rate
	}
	return status.Failed, rate
}

// slashRel is path relative to root with forward slashes.
func slashRel(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// selFor is the selection config a topic's candidates are chosen under: the
// run's weights and preference, and never a report that is not admissible.
func selFor(c config.Selection) config.Selection {
	c.OnNoAdmissible = config.NoAdmissibleFail
	return c
}
