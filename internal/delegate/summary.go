package delegate

import (
	"fmt"
	"math"
	"path"
	"strings"

	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/status"
)

// Percent formats a share as a percentage for people: 75, 66.7, 100.
func Percent(share float64) string {
	return fmt.Sprintf("%g", math.Round(share*1000)/10)
}

// SuccessLine is the summary's line "Research complete: <valid>/<planned>
// topics (<pct>% success)".
func SuccessLine(valid, planned int, rate float64) string {
	return fmt.Sprintf("Research complete: %d/%d topics (%s%% success)", valid, planned, Percent(rate))
}

// ReductionLine states the context reduction.
func ReductionLine(o *Outcome) string {
	if o.ReportBytes == 0 {
		return "Context reduction: none (no valid report)"
	}
	return fmt.Sprintf("Context reduction: %s%% (%d bytes of report metadata used in place of %d bytes of reports)",
		Percent(o.ContextReduction), o.MetadataBytes, o.ReportBytes)
}

func barrierMessage(o *Outcome) string {
	planned := len(o.Topics)
	switch {
	case o.Status == status.Completed && !o.Warned():
		return fmt.Sprintf("every one of the %d planned reports is valid", planned)
	case o.Warned():
		return fmt.Sprintf("%d of %d topics failed; the run completes with a warning (threshold %s%%)", planned-o.Valid, planned, Percent(o.Threshold))
	}
	return fmt.Sprintf("only %d of %d reports are valid (%s%%), below the threshold of %s%%", o.Valid, planned, Percent(o.SuccessRate), Percent(o.Threshold))
}

// section is one of the summary's four sections: a title and its lines
// (plain text; Markdown rendering escapes them where they are untrusted).
type section struct {
	title string
	lines []string
}

// summarySections builds the four sections, with untrusted text passed
// through esc and paths through code.
func summarySections(in Input, o *Outcome, esc func(string, int) string, code func(string) string) []section {
	lake := func(rel string) string { return code(path.Join(in.Datalake, rel)) }
	sum := section{title: "Summary"}
	planned := len(o.Topics)
	sum.lines = append(sum.lines, SuccessLine(o.Valid, planned, o.SuccessRate))
	sum.lines = append(sum.lines, fmt.Sprintf("Status: %s — %s", o.Status, esc(o.Message, 400)))
	sum.lines = append(sum.lines, ReductionLine(o))

	ph := section{title: "Phases"}
	ph.lines = append(ph.lines, "1. Spec folder: "+lake(o.Spec))
	coord := in.Pipeline.Coordinator
	if o.CoordinatorFailure != nil {
		ph.lines = append(ph.lines, fmt.Sprintf("2. Plan: coordinator %s failed (%s): %s", code(coord), o.CoordinatorFailure.Type, esc(o.CoordinatorFailure.Message, 300)))
	} else {
		ph.lines = append(ph.lines, fmt.Sprintf("2. Plan: coordinator %s planned %d topics (max-topics %d)", code(coord), planned, in.Pipeline.MaxTopics))
		ph.lines = append(ph.lines, fmt.Sprintf("3. Invocation plan written before any specialist started: %s", lake(path.Join(o.Spec, FileInvocationPlan))))
		ph.lines = append(ph.lines, fmt.Sprintf("4. Research: %d specialist runs in parallel (%d per topic)", len(o.Results)-1, in.Pipeline.Candidates))
		ph.lines = append(ph.lines, fmt.Sprintf("5. Validation: %d valid, %d failed", o.Valid, planned-o.Valid))
		ph.lines = append(ph.lines, fmt.Sprintf("6. Barrier: %s%% against threshold %s%% → %s", Percent(o.SuccessRate), Percent(o.Threshold), o.Status))
		if o.Overview != "" {
			ph.lines = append(ph.lines, "7. Overview from metadata only: "+lake(path.Join(o.Spec, FileOverview)))
		}
	}

	art := section{title: "Artifacts"}
	if o.Overview != "" {
		art.lines = append(art.lines, "Overview: "+lake(path.Join(o.Spec, FileOverview)))
	}
	if o.InvocationPlan != "" {
		art.lines = append(art.lines, "Invocation plan: "+lake(path.Join(o.Spec, FileInvocationPlan)))
	}
	for _, t := range o.Topics {
		state := "valid"
		if !t.Valid {
			state = "failed"
		}
		art.lines = append(art.lines, fmt.Sprintf("%03d %s (%s, %s): %s", t.N, esc(t.Topic.Topic, 120), state, code(t.Agent), lake(t.Path)))
	}
	if len(o.Errors) > 0 {
		art.lines = append(art.lines, fmt.Sprintf("Errors: %d lines in %s", len(o.Errors), lake("errors.jsonl")))
	}

	next := section{title: "Next Steps"}
	switch {
	case o.CoordinatorFailure != nil:
		next.lines = append(next.lines, "Fix the coordinator: "+esc(o.CoordinatorFailure.Hint, 300))
	case o.Status == status.Completed && !o.Warned():
		next.lines = append(next.lines, "Read the overview, then the reports it links.")
	default:
		if o.Overview != "" {
			next.lines = append(next.lines, "Read the overview: it lists the valid reports and the failed topics.")
		}
		for _, t := range o.Topics {
			if t.Failure != nil {
				next.lines = append(next.lines, fmt.Sprintf("Topic %03d: %s", t.N, esc(t.Failure.Hint, 300)))
			}
		}
	}
	return []section{sum, ph, art, next}
}

// summarize renders the summary as Markdown (step summary, comment).
func summarize(in Input, o *Outcome) string {
	var b strings.Builder
	for _, s := range summarySections(in, o, markdown.Inline, markdown.Code) {
		b.WriteString("### " + s.title + "\n\n")
		for _, l := range s.lines {
			if s.title == "Phases" {
				b.WriteString(l + "\n")
			} else {
				b.WriteString("- " + l + "\n")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// summarizeText renders the summary as plain text (terminal).
func summarizeText(in Input, o *Outcome) string {
	var b strings.Builder
	plain := func(s string) string { return s }
	for _, s := range summarySections(in, o, markdown.OneLine, plain) {
		b.WriteString(s.title + "\n")
		for _, l := range s.lines {
			b.WriteString("  " + l + "\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}
