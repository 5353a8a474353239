package action

import (
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/markdown"
)

// headingRE matches an ATX Markdown heading and captures its text.
var headingRE = lazyregexp.New(`^ {0,3}#{1,6}(?:[ \t]+(.*))?$`)

// listMarkerRE matches a list item's marker: "- ", "* ", "+ ", "1. ", "1) ".
var listMarkerRE = lazyregexp.New(`^(?:[-*+]|\d{1,9}[.)])[ \t]+`)

// ConstraintsSection returns the constraint names listed in the body's
// "### Constraints" section, the way GitHub issue forms render a field: the
// heading (any level, case-insensitive, an optional trailing colon), then
// everything up to the next heading. See SplitConstraints for the items.
func ConstraintsSection(body string) (names, rejected []string) {
	var section []string
	in := false
	for line := range strings.Lines(normalizeNewlines(body)) {
		line = strings.TrimSuffix(line, "\n")
		if m := headingRE.FindStringSubmatch(line); m != nil {
			in = isConstraintsHeading(m[1])
			continue
		}
		if in {
			section = append(section, line)
		}
	}
	return SplitConstraints(strings.Join(section, "\n"))
}

func isConstraintsHeading(text string) bool {
	text = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(text), "#"))
	text = strings.TrimSpace(strings.TrimSuffix(text, ":"))
	return strings.EqualFold(text, "constraints")
}

// SplitConstraints splits s into constraint names on commas and newlines.
// Each item loses a list marker ("- ", "* ", "1. "), a checked task box
// ("[x] "; an unchecked "[ ] " item is dropped) and all backticks; the issue
// forms' "_No response_" is ignored; names are lower-cased. Items that are
// not constraint names (check.ValidateName) are returned in rejected, cut to
// a readable length. Both lists keep the first occurrence of each item.
func SplitConstraints(s string) (names, rejected []string) {
	for line := range strings.Lines(normalizeNewlines(s)) {
		line = strings.TrimSpace(line)
		line = listMarkerRE.ReplaceAllString(line, "")
		switch {
		case strings.HasPrefix(line, "[ ]"):
			continue
		case strings.HasPrefix(line, "[x]"), strings.HasPrefix(line, "[X]"):
			line = line[3:]
		}
		for item := range strings.SplitSeq(line, ",") {
			item = strings.TrimSpace(strings.ReplaceAll(item, "`", ""))
			if item == "" || strings.EqualFold(item, "_No response_") {
				continue
			}
			name := strings.ToLower(item)
			if check.ValidateName(name) != nil {
				// An item of control characters only shows as nothing:
				// there is no name in it to reject.
				if shown := markdown.OneLine(item, 80); shown != "" {
					rejected = appendNew(rejected, shown)
				}
				continue
			}
			names = appendNew(names, name)
		}
	}
	return names, rejected
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// normalizeNewlines turns CRLF and lone CR (the web editor's line ends) into LF.
func normalizeNewlines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
