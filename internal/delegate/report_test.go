package delegate

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const validReport = `---
report_type: research
topic: "hash chains"
findings_count: 2
recommendations_count: 1
created_date: 2026-11-23
status: complete
---
# Hash chains

## Summary
Entries carry the previous hash.

## Findings
- tampering shows
- verification is linear
  - a nested point is not a finding

` + "```" + `
## Findings
- a fenced line is no finding
` + "```" + `

## Recommendations
1. publish the head

## Sources
- https://example.com
`

func TestValidate(t *testing.T) {
	t.Parallel()
	meta, err := Validate(validReport, "Hash Chains")
	if err != nil {
		t.Fatal(err)
	}
	front := validReport[:strings.Index(validReport, "# Hash chains")]
	want := Meta{ReportType: "research", Topic: "hash chains", FindingsCount: 2, RecommendationsCount: 1, CreatedDate: "2026-11-23", Status: "complete", Bytes: len(front)}
	if diff := cmp.Diff(want, meta); diff != "" {
		t.Errorf("meta (-want +got):\n%s", diff)
	}

	edit := func(old, repl string) string { return strings.Replace(validReport, old, repl, 1) }
	tests := []struct {
		name, text, topic, reason, says string
	}{
		{"empty", "", "hash chains", ReasonFrontmatter, "does not start with YAML frontmatter"},
		{"no frontmatter", "# Hash chains\n## Summary\n", "hash chains", ReasonFrontmatter, "first line must be"},
		{"unclosed frontmatter", "---\ntopic: x\n", "hash chains", ReasonFrontmatter, "not closed"},
		{"invalid YAML", "---\ntopic: [unclosed\n---\n", "hash chains", ReasonFrontmatter, "not valid YAML"},
		{"frontmatter that is a list", "---\n- a\n---\n", "hash chains", ReasonFrontmatter, "not valid YAML"},
		{"missing keys", edit("status: complete\n", ""), "hash chains", ReasonFrontmatter, "lacks status"},
		{"count as text", edit("findings_count: 2", "findings_count: two"), "hash chains", ReasonFrontmatter, "findings_count must be a whole number"},
		{"negative count", edit("findings_count: 2", "findings_count: -2"), "hash chains", ReasonFrontmatter, "findings_count must be a whole number"},
		{"fractional count", edit("findings_count: 2", "findings_count: 2.5"), "hash chains", ReasonFrontmatter, "findings_count must be a whole number"},
		{"empty status", edit("status: complete", "status: ''"), "hash chains", ReasonFrontmatter, "status must be a non-empty string"},
		{"another topic", validReport, "witnesses", ReasonFrontmatter, "not the planned topic"},
		{"false findings count", edit("findings_count: 2", "findings_count: 3"), "hash chains", ReasonCounts, "findings_count is 3 but ## Findings lists 2 bullets"},
		{"false recommendations count", edit("recommendations_count: 1", "recommendations_count: 0"), "hash chains", ReasonCounts, "recommendations_count is 0 but ## Recommendations lists 1 bullets"},
		{"no sources", edit("## Sources", "## References"), "hash chains", ReasonSections, `no "## Sources" section`},
		{"summary only as level 3", edit("## Summary", "### Summary"), "hash chains", ReasonSections, `no "## Summary" section`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Validate(tt.text, tt.topic)
			var re *ReportError
			if !errors.As(err, &re) || re.Reason != tt.reason || !strings.Contains(re.Msg, tt.says) {
				t.Fatalf("Validate = %v; want a %s error saying %q", err, tt.reason, tt.says)
			}
		})
	}
}

func FuzzValidate(f *testing.F) {
	f.Add(validReport)
	f.Add("---\nfindings_count: 99999999999999999999\n---\n")
	f.Add("---\n&a [*a]\n---\n")
	f.Fuzz(func(t *testing.T, text string) {
		meta, err := Validate(text, "hash chains")
		if err != nil {
			var re *ReportError
			if !errors.As(err, &re) || re.Reason == "" {
				t.Fatalf("error %v is not a named ReportError", err)
			}
			return
		}
		if meta.FindingsCount < 0 || meta.RecommendationsCount < 0 || meta.Bytes > len(text) {
			t.Fatalf("accepted %+v", meta)
		}
	})
}
