package delegate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/beneath"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/frames"
)

// MaxReportBytes bounds a report: a larger one fails its topic without
// being read (realistic reports are about 10 KB).
const MaxReportBytes = 1 << 20

// coordinator wraps the coordinator agent: a plan optr cannot use is a
// systematic failure of the attempt, so recovery (Level-2 analysis, an
// alternative with a hint) applies before the run fails.
type coordinator struct {
	agent.Agent
	llm       bool
	maxTopics int
	brief     string
}

// Run asks for the plan and checks it.
func (c coordinator) Run(ctx context.Context, req agent.Request) (agent.Response, error) {
	req.Intent, req.Stage = c.brief, StageCoordinator
	resp, err := c.Agent.Run(ctx, req)
	if err != nil {
		return resp, err
	}
	if _, err := ParsePlan(resp.Output, c.llm, c.maxTopics); err != nil {
		var pe *PlanError
		errors.As(err, &pe)
		return resp, agent.Errorf(agent.Systematic, pe.Reason, "%w", err)
	}
	return resp, nil
}

// specialist wraps a specialist agent for one topic: it gives the agent the
// topic and report path, takes the report (the file a command agent wrote,
// the answer of an LLM agent), validates it and returns it as the output,
// so that the executor checks the report against the run's constraints and
// a refused report is a systematic failure under recovery.
type specialist struct {
	agent.Agent
	name   string // the result name, <agent>.<NNN>
	llm    bool
	topic  Topic
	path   string // absolute
	brief  string
	dir    string // the workspace, against which relative paths resolve
	redact func(string) string
}

// Name is the result name: one agent may write several topics.
func (s *specialist) Name() string { return s.name }

// Run runs one attempt and validates its report.
func (s *specialist) Run(ctx context.Context, req agent.Request) (agent.Response, error) {
	req.Intent, req.Stage, req.Topic, req.ReportPath = s.brief, StageSpecialist, s.topic.Topic, s.path
	resp, err := s.Agent.Run(ctx, req)
	te := taskError(resp.Signals)
	if err != nil {
		if te != "" {
			err = &agent.Error{Class: agent.ClassOf(err), Reason: ReasonTaskError, Err: fmt.Errorf("%s: %w", te, err)}
		}
		return resp, err
	}
	if te != "" {
		return resp, agent.Errorf(agent.Systematic, ReasonTaskError, "%s (the specialist exited 0 but reported a failure)", te)
	}
	text := resp.Output
	if !s.llm {
		if text, err = s.report(resp.Signals); err != nil {
			return resp, classify(err)
		}
	}
	resp.Raw, resp.Output = resp.Output, text
	if _, err := Validate(text, s.topic.Topic); err != nil {
		return resp, classify(err)
	}
	return resp, nil
}

// classify turns a *ReportError into a systematic agent error.
func classify(err error) error {
	var re *ReportError
	if errors.As(err, &re) {
		return agent.Errorf(agent.Systematic, re.Reason, "%w", err)
	}
	return err
}

// taskError describes the last TASK_ERROR signal with its ERROR_CONTEXT,
// "" when there is none.
func taskError(signals []agent.Signal) string {
	msg, ctx := "", ""
	for _, sg := range signals {
		switch frames.Type(sg.Kind) {
		case frames.TaskError:
			msg = "TASK_ERROR " + sg.Payload
		case frames.ErrorContext:
			ctx = sg.Payload
		}
	}
	if msg != "" && ctx != "" {
		msg += " (ERROR_CONTEXT " + clip(ctx) + ")"
	}
	return msg
}

// report reads the report a command specialist wrote: at its report path
// (OPTR_REPORT_PATH, in a folder of its own) and nowhere else, a regular
// file of at most MaxReportBytes. Secrets in it are redacted in place, so
// the committed file holds none.
func (s *specialist) report(signals []agent.Signal) (string, error) {
	for _, sg := range signals {
		if frames.Type(sg.Kind) != frames.ReportCreated {
			continue
		}
		p := sg.Payload
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.dir, p)
		}
		if abs, err := filepath.Abs(p); err != nil || abs != s.path {
			return "", reportErr(ReasonReportElsewhere, "the specialist reported its report at %s, not at its report path %s (OPTR_REPORT_PATH); a report counts only there", clip(sg.Payload), s.path)
		}
	}
	text, err := readReport(s.path)
	if err != nil {
		return "", err
	}
	if s.redact != nil {
		if clean := s.redact(text); clean != text {
			if err := datalake.Replace(s.path, []byte(clean)); err != nil {
				return "", fmt.Errorf("redact the report: %w", err)
			}
			text = clean
		}
	}
	return text, nil
}

// readReport reads the report at path without following a symbolic link
// and without reading more than MaxReportBytes. The other specialists may
// still run and can write the reports' folder: a report turned into a link
// to a file outside it, or into a FIFO, after it was looked at is never
// read or waited for (package beneath).
func readReport(path string) (string, error) {
	data, err := beneath.Read(filepath.Dir(path), filepath.Base(path), MaxReportBytes)
	var notFile *beneath.NotRegularError
	var tooLarge *beneath.TooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", reportErr(ReasonReportMissing, "no report at the report path %s (OPTR_REPORT_PATH): the specialist wrote nothing there", path)
	case errors.As(err, &notFile):
		return "", reportErr(ReasonReportNotFile, "%s is not a regular file (%s); write the report itself there, not a link or a folder", path, notFile.What)
	case errors.As(err, &tooLarge) && tooLarge.Size == 0:
		return "", reportErr(ReasonReportTooLarge, "the report at %s grew past %d bytes while it was read", path, MaxReportBytes)
	case errors.As(err, &tooLarge):
		return "", reportErr(ReasonReportTooLarge, "the report at %s is %d bytes; a report may hold at most %d bytes", path, tooLarge.Size, MaxReportBytes)
	case err != nil:
		return "", fmt.Errorf("read the report: %w", err)
	}
	return strings.ToValidUTF8(string(data), "\uFFFD"), nil
}
