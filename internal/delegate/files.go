package delegate

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/markdown"
)

// InvocationPlan renders .invocation-plan.txt: "expected_invocations: N",
// one line "NNN<TAB><topic><TAB><report path>" a topic (the path relative
// to the spec folder), and "PLAN_COMPLETE".
func InvocationPlan(topics []Topic) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "expected_invocations: %d\n", len(topics))
	for k, t := range topics {
		nnn := fmt.Sprintf("%03d", k+1)
		fmt.Fprintf(&b, "%s\t%s\t%s/%s_%s.md\n", nnn, t.Topic, DirReports, nnn, Slug(t.Topic))
	}
	b.WriteString("PLAN_COMPLETE\n")
	return []byte(b.String())
}

func (r *runner) writeInvocationPlan(plan []planned) error {
	topics := make([]Topic, len(plan))
	for i, p := range plan {
		topics[i] = p.topic
	}
	path := filepath.Join(r.o.SpecDir, FileInvocationPlan)
	if err := datalake.WriteOnce(path, InvocationPlan(topics)); err != nil {
		return fmt.Errorf("write the invocation plan: %w", err)
	}
	r.o.InvocationPlan = path
	return nil
}

// OverviewInput is everything OVERVIEW.md is made of: the request, the
// date and each topic's frontmatter metadata. It holds no report body, so
// none can reach the overview.
type OverviewInput struct {
	Request, Workflow, RunID string
	Date                     time.Time
	Topics                   []OverviewTopic
}

// OverviewTopic is one topic as OVERVIEW.md shows it.
type OverviewTopic struct {
	N     int
	Topic string
	// Link is the report's path relative to the spec folder.
	Link  string
	Valid bool
	// Meta is the valid report's frontmatter.
	Meta Meta
	// Failure says why the topic failed.
	Failure string
}

// Overview renders OVERVIEW.md: the request, the date, one line per valid
// report (topic, findings count, relative link) and, below 100%, a Partial
// Success marker with the failed topics. Untrusted text is rendered inert.
func Overview(in OverviewInput) []byte {
	var b strings.Builder
	valid := 0
	for _, t := range in.Topics {
		if t.Valid {
			valid++
		}
	}
	b.WriteString("# Research overview\n\n")
	b.WriteString("**Request:** " + markdown.Inline(in.Request, 500) + "\n\n")
	fmt.Fprintf(&b, "**Date:** %s  \n**Workflow:** %s  \n**Run:** %s\n\n", in.Date.UTC().Format(time.DateOnly), markdown.Code(in.Workflow), markdown.Code(in.RunID))
	fmt.Fprintf(&b, "## Reports (%d of %d topics)\n\n", valid, len(in.Topics))
	for _, t := range in.Topics {
		if !t.Valid {
			continue
		}
		fmt.Fprintf(&b, "- %03d [%s](%s) — %d findings, %d recommendations\n", t.N, markdown.Inline(t.Topic, 200), t.Link, t.Meta.FindingsCount, t.Meta.RecommendationsCount)
	}
	if valid == 0 {
		b.WriteString("No report is valid.\n")
	}
	if valid < len(in.Topics) {
		b.WriteString("\n## Partial Success\n\n")
		fmt.Fprintf(&b, "%d of %d topics failed:\n\n", len(in.Topics)-valid, len(in.Topics))
		for _, t := range in.Topics {
			if !t.Valid {
				fmt.Fprintf(&b, "- %03d %s: %s\n", t.N, markdown.Inline(t.Topic, 200), markdown.Inline(t.Failure, 300))
			}
		}
	}
	return []byte(b.String())
}

// writeOverview writes OVERVIEW.md from the topics' metadata (step 7).
func (r *runner) writeOverview() error {
	in := OverviewInput{Request: r.in.Intent, Workflow: r.in.Workflow, RunID: r.in.RunID, Date: r.in.now()}
	for _, t := range r.o.Topics {
		ot := OverviewTopic{N: t.N, Topic: t.Topic.Topic, Link: strings.TrimPrefix(t.Path, r.o.Spec+"/"), Valid: t.Valid, Meta: t.Meta}
		if t.Failure != nil {
			ot.Failure = t.Failure.Message
		}
		in.Topics = append(in.Topics, ot)
	}
	path := filepath.Join(r.o.SpecDir, FileOverview)
	if err := datalake.WriteOnce(path, Overview(in)); err != nil {
		return fmt.Errorf("write OVERVIEW.md: %w", err)
	}
	r.o.Overview = path
	return nil
}
