package markdown

import "testing"

// Inline escapes only what Markdown would act on: email notifications show
// the raw text, so "azure-openai" must not read "azure\-openai".
func TestInline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"azure-openai", "azure-openai"},
		{"openai/gpt-4.1 (fast), v2.0!", "openai/gpt-4.1 (fast), v2.0!"},
		{"it's 50% done; ok? {x} \"q\" = 1 + 2", "it's 50% done; ok? {x} \"q\" = 1 + 2"},
		{"snake_case_name", "snake_case_name"},
		{"_emphasis_ and __strong__", "\\_emphasis\\_ and \\_\\_strong\\_\\_"},
		{"**bold** `code` [link](x) ![img](y)", "\\*\\*bold\\*\\* \\`code\\` \\[link\\](x) !\\[img\\](y)"},
		{"<b>html</b> <!-- optr:run=1 -->", "\\<b>html\\</b> \\<!-- optr\u200b:run=1 -->"},
		{"a | b ~~gone~~ $x^2$ back\\slash", "a \\| b \\~\\~gone\\~\\~ \\$x^2\\$ back\\\\slash"},
		{"&amp; &#42; & AT&T", "\\&amp; \\&#\u200b42; & AT&T"},
		{"@octocat #12", "@\u200boctocat #\u200b12"},
		{"# heading", "\\#\u200b heading"},
		{"- item", "\\- item"},
		{"+ item", "\\+ item"},
		{"> quote", "\\> quote"},
		{"1. first", "1\\. first"},
		{"12) first", "12\\) first"},
		{"version 1. then", "version 1. then"},
		{"a -> b - c", "a -> b - c"},
		{"line\nbreak\ttab", "line break tab"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			if got := Inline(tt.in, 200); got != tt.want {
				t.Errorf("Inline(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
