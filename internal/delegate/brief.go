package delegate

import (
	"fmt"
	"strings"
)

// The parts an agent plays in a delegate run, passed as its request's Stage
// (OPTR_STAGE for command agents).
const (
	StageCoordinator = "coordinator"
	StageSpecialist  = "specialist"
)

// coordinatorBrief is the coordinator's intent: what to plan, how many
// topics at most, the form of the plan, and the request.
func coordinatorBrief(intent string, maxTopics int, llm bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are the coordinator of a research run. Plan only: split the request below into 1 to %d topics ", maxTopics)
	b.WriteString("that specialists will research in parallel, one report each. Do not research the topics yourself.\n")
	b.WriteString("Each topic is one short line; topics must differ from each other.\n\n")
	if llm {
		b.WriteString("Answer with the plan as one JSON object in this form:\n")
		b.WriteString(`{"topics":[{"topic":"<a short title>","focus":"<what the specialist should look at>"}]}` + "\n")
	} else {
		b.WriteString("Print the plan in this form, each part on its own line:\n")
		b.WriteString(SignalPlanReady + ": <number of topics>\n")
		b.WriteString(`[{"topic":"<a short title>","focus":"<what the specialist should look at>"}]` + "\n")
		b.WriteString(SignalComplete + ": SUCCESS\n")
	}
	fmt.Fprintf(&b, "\nmax-topics: %d\n\nRequest:\n%s\n", maxTopics, intent)
	return b.String()
}

// specialistBrief is a specialist's intent: its topic, where its report
// goes, the report's form, and the request.
func specialistBrief(intent string, t Topic, path string, llm bool) string {
	var b strings.Builder
	b.WriteString("You are a specialist in a research run. Research one topic of the request below and write one report.\n\n")
	fmt.Fprintf(&b, "Topic: %s\n", t.Topic)
	if t.Focus != "" {
		fmt.Fprintf(&b, "Focus: %s\n", t.Focus)
	}
	if llm {
		b.WriteString("\nYour answer is the report itself, exactly in the form below; optr saves it.\n")
	} else {
		fmt.Fprintf(&b, "\nWrite the report to %s (also in $OPTR_REPORT_PATH), then print the line\nREPORT_CREATED: %s\n", path, path)
		b.WriteString("If you cannot, print TASK_ERROR: <type> - <message>, optionally ERROR_CONTEXT: <json>, and exit non-zero.\n")
	}
	b.WriteString("\nThe report is Markdown that starts with this YAML frontmatter:\n---\n")
	b.WriteString("report_type: research\n")
	fmt.Fprintf(&b, "topic: %q\n", t.Topic)
	b.WriteString("findings_count: <the number of bullets under ## Findings>\n")
	b.WriteString("recommendations_count: <the number of bullets under ## Recommendations, 0 if there is none>\n")
	b.WriteString("created_date: <YYYY-MM-DD>\n")
	b.WriteString("status: complete\n---\n")
	b.WriteString("followed by the sections ## Summary, ## Findings (one \"- \" bullet per finding), ")
	b.WriteString("## Recommendations (optional, one bullet each) and ## Sources.\n")
	fmt.Fprintf(&b, "\nRequest:\n%s\n", intent)
	return b.String()
}
