package delegate

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/markdown"
)

// Meta is a report's frontmatter: the only part of a report optr reads
// after validation (OVERVIEW.md, the summary and the ledger use it).
type Meta struct {
	ReportType           string `json:"report_type"`
	Topic                string `json:"topic"`
	FindingsCount        int    `json:"findings_count"`
	RecommendationsCount int    `json:"recommendations_count"`
	CreatedDate          string `json:"created_date"`
	Status               string `json:"status"`
	// Bytes is the size of the frontmatter block, fences included: the
	// metadata the summary uses in place of the report.
	Bytes int `json:"-"`
}

// Reasons a report is refused: each is the agent.Error reason of the
// specialist's failure and the error_type of its errors.jsonl line.
const (
	ReasonReportMissing   = "report_missing"
	ReasonReportElsewhere = "report_elsewhere"
	ReasonReportNotFile   = "report_not_a_file"
	ReasonReportTooLarge  = "report_too_large"
	ReasonFrontmatter     = "invalid_frontmatter"
	ReasonSections        = "missing_section"
	ReasonCounts          = "false_counts"
	ReasonTaskError       = "task_error"
)

// ReportError is a report optr refuses, with the reason (one of the
// ReasonReport*, ReasonFrontmatter, ReasonSections, ReasonCounts constants)
// and what is wrong, in words a person can act on.
type ReportError struct {
	Reason string
	Msg    string
}

// Error implements error.
func (e *ReportError) Error() string { return e.Msg }

func reportErr(reason, format string, args ...any) *ReportError {
	return &ReportError{Reason: reason, Msg: fmt.Sprintf(format, args...)}
}

// The sections every report has, and the one whose bullets
// recommendations_count counts.
const (
	SectionSummary         = "Summary"
	SectionFindings        = "Findings"
	SectionSources         = "Sources"
	SectionRecommendations = "Recommendations"
)

// requiredMeta are the frontmatter keys every report holds, in order.
var requiredMeta = []string{"report_type", "topic", "findings_count", "recommendations_count", "created_date", "status"}

// Validate checks a report's text for topic: YAML frontmatter (parsed by
// goccy/go-yaml) holding every required key with a value of the right kind
// and the planned topic; the ## Summary, ## Findings and ## Sources
// sections; findings_count and recommendations_count equal to the bullets
// under ## Findings and ## Recommendations. It returns the frontmatter, or
// a *ReportError that says what to fix.
func Validate(text, topic string) (Meta, error) {
	front, body, err := splitFrontmatter(text)
	if err != nil {
		return Meta{}, err
	}
	m, err := parseMeta(front)
	if err != nil {
		return Meta{}, err
	}
	m.Bytes = len(text) - len(body)
	if Slug(m.Topic) != Slug(topic) {
		return Meta{}, reportErr(ReasonFrontmatter, "the frontmatter's topic %q is not the planned topic %q", clip(m.Topic), clip(topic))
	}
	sections := bullets(body)
	for _, s := range []string{SectionSummary, SectionFindings, SectionSources} {
		if _, ok := sections[s]; !ok {
			return Meta{}, reportErr(ReasonSections, "the report has no \"## %s\" section; it needs ## %s, ## %s and ## %s", s, SectionSummary, SectionFindings, SectionSources)
		}
	}
	if n := sections[SectionFindings]; n != m.FindingsCount {
		return Meta{}, reportErr(ReasonCounts, "findings_count is %d but ## %s lists %d bullets; make the count match the list", m.FindingsCount, SectionFindings, n)
	}
	if n := sections[SectionRecommendations]; n != m.RecommendationsCount {
		return Meta{}, reportErr(ReasonCounts, "recommendations_count is %d but ## %s lists %d bullets; make the count match the list", m.RecommendationsCount, SectionRecommendations, n)
	}
	return m, nil
}

// splitFrontmatter returns the YAML between a first line "---" and the
// next line "---" (or "..."), and the text after it.
func splitFrontmatter(text string) (front, body string, err error) {
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimRight(first, " \r") != "---" {
		return "", "", reportErr(ReasonFrontmatter, "the report does not start with YAML frontmatter: its first line must be \"---\", followed by %s and a closing \"---\"", strings.Join(requiredMeta, ", "))
	}
	for off := 0; off < len(rest); {
		line, _, _ := strings.Cut(rest[off:], "\n")
		if l := strings.TrimRight(line, " \r"); l == "---" || l == "..." {
			end := min(off+len(line)+1, len(rest))
			return rest[:off], rest[end:], nil
		}
		off += len(line) + 1
	}
	return "", "", reportErr(ReasonFrontmatter, "the frontmatter is not closed: add a line \"---\" after it")
}

// parseMeta decodes the frontmatter and checks each key's presence and kind.
func parseMeta(front string) (Meta, error) {
	var raw map[string]any
	if err := yaml.Unmarshal([]byte(front), &raw); err != nil {
		msg := err.Error()
		var ye yaml.Error
		if errors.As(err, &ye) {
			msg = ye.GetMessage()
		}
		return Meta{}, reportErr(ReasonFrontmatter, "the frontmatter is not valid YAML: %s", clip(msg))
	}
	if raw == nil {
		return Meta{}, reportErr(ReasonFrontmatter, "the frontmatter is empty; it needs %s", strings.Join(requiredMeta, ", "))
	}
	var m Meta
	var missing []string
	for _, k := range requiredMeta {
		if _, ok := raw[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return Meta{}, reportErr(ReasonFrontmatter, "the frontmatter lacks %s", strings.Join(missing, ", "))
	}
	var err error
	str := func(k string) string {
		s, ok := raw[k].(string)
		if (!ok || strings.TrimSpace(s) == "") && err == nil {
			err = reportErr(ReasonFrontmatter, "the frontmatter's %s must be a non-empty string", k)
		}
		return strings.TrimSpace(s)
	}
	count := func(k string) int {
		n, ok := wholeNumber(raw[k])
		if !ok && err == nil {
			err = reportErr(ReasonFrontmatter, "the frontmatter's %s must be a whole number of zero or more, got %s", k, clip(fmt.Sprint(raw[k])))
		}
		return n
	}
	m.ReportType = str("report_type")
	m.Topic = str("topic")
	m.FindingsCount = count("findings_count")
	m.RecommendationsCount = count("recommendations_count")
	m.Status = str("status")
	switch d := raw["created_date"].(type) {
	case time.Time:
		m.CreatedDate = d.UTC().Format(time.DateOnly)
	default:
		m.CreatedDate = str("created_date")
	}
	return m, err
}

// wholeNumber accepts the integer kinds goccy decodes into any.
func wholeNumber(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, n >= 0
	case int64:
		return int(n), n >= 0 && n <= 1<<31
	case uint64:
		return int(n), n <= 1<<31
	}
	return 0, false
}

var (
	headingRE = lazyregexp.New(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	bulletRE  = lazyregexp.New(`^(?:[-*+]|\d{1,9}[.)])\s+\S`)
	fenceRE   = lazyregexp.New("^ {0,3}(```|~~~)")
)

// bullets maps each level-2 section of body ("## Name") to the number of
// top-level list items in it (lines starting, unindented, with "- ", "* ",
// "+ " or "1. "), up to the next heading of level 1 or 2. Lines inside
// fenced code blocks are neither headings nor items.
func bullets(body string) map[string]int {
	out := map[string]int{}
	current, fence := "", ""
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimRight(line, "\r")
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence = m[1]
			case fence == m[1]:
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if m := headingRE.FindStringSubmatch(line); m != nil {
			switch len(m[1]) {
			case 1:
				current = ""
			case 2:
				current = m[2]
				if _, ok := out[current]; !ok {
					out[current] = 0
				}
			}
			continue
		}
		if current != "" && bulletRE.MatchString(line) {
			out[current]++
		}
	}
	return out
}

// clip shortens untrusted text quoted in a message to one line.
func clip(s string) string { return markdown.OneLine(s, 120) }
