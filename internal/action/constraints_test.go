package action

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/check"
)

func TestConstraintsSection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		body         string
		want, reject []string
	}{
		{name: "no section", body: "Just do it.\n\n### Notes\n\n- a"},
		{name: "empty body"},
		{name: "issue form, no response", body: "### Intent\n\nx\n\n### Constraints\n\n_No response_\n\n### Notes\n\ny"},
		{
			name: "issue form, CRLF, bullets, backticks, commas",
			body: "### Intent\r\n\r\nx\r\n\r\n### Constraints\r\n\r\n- `no-todo`\r\n* Max-Length, json\r\n+ markdown\r\n1. tests-pass\r\n\r\n### Notes\r\n\r\n- not-me",
			want: []string{"no-todo", "max-length", "json", "markdown", "tests-pass"},
		},
		{
			name: "checkboxes: only checked ones count",
			body: "### Constraints\n\n- [X] json\n- [ ] markdown\n- [x] no-todo",
			want: []string{"json", "no-todo"},
		},
		{
			name: "heading level, case and colon do not matter; section ends at any heading",
			body: "## constraints:\njson\n# Other\nmarkdown",
			want: []string{"json"},
		},
		{
			name: "closing hashes",
			body: "### Constraints ###\njson",
			want: []string{"json"},
		},
		{
			name: "a heading word inside text is not a heading",
			body: "Constraints: json\n####### Constraints\nmarkdown\n#Constraints\nno",
		},
		{
			name:   "invalid names are reported, duplicates dropped",
			body:   "### Constraints\nno secrets, ../etc, json, JSON, json, " + strings.Repeat("a", 65),
			want:   []string{"json"},
			reject: []string{"no secrets", "../etc", strings.Repeat("a", 65)},
		},
		{
			name: "two sections both count",
			body: "### Constraints\njson\n### Intent\nx\n### Constraints\nmarkdown, json",
			want: []string{"json", "markdown"},
		},
		{
			name:   "long rejected items are shortened to one line",
			body:   "### Constraints\n" + strings.Repeat("x y ", 40),
			reject: []string{strings.TrimSpace(strings.Repeat("x y ", 20))[:79] + "…"},
		},
	}
	for _, tt := range tests {
		got, rejected := ConstraintsSection(tt.body)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: names mismatch (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(tt.reject, rejected); diff != "" {
			t.Errorf("%s: rejected mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestSplitConstraints(t *testing.T) {
	t.Parallel()
	got, rejected := SplitConstraints(" json,markdown ,\n no-todo,, `Tests-Pass` ")
	if diff := cmp.Diff([]string{"json", "markdown", "no-todo", "tests-pass"}, got); diff != "" {
		t.Errorf("names mismatch (-want +got):\n%s", diff)
	}
	if len(rejected) != 0 {
		t.Errorf("rejected = %q", rejected)
	}
}

func FuzzConstraintsSection(f *testing.F) {
	for _, s := range []string{
		"### Constraints\n\n- `no-todo`\n- max-length, Markdown\n",
		"### Constraints\r\n\r\n_No response_\r\n\r\n### Notes",
		"## constraints:\n- [x] json\n- [ ] md",
		"### Constraints\nno secrets, ../etc",
		"#",
		"### Constraints\n\xff\xfe, ,,",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		names, rejected := ConstraintsSection(body)
		seen := map[string]bool{}
		for _, n := range names {
			if err := check.ValidateName(n); err != nil {
				t.Fatalf("invalid name %q returned: %v", n, err)
			}
			if seen[n] {
				t.Fatalf("duplicate name %q", n)
			}
			seen[n] = true
		}
		for _, r := range rejected {
			if r == "" || strings.ContainsAny(r, "\r\n") || len([]rune(r)) > 80 {
				t.Fatalf("rejected item %q is empty, long or not one line", r)
			}
		}
		again, _ := ConstraintsSection(body)
		if diff := cmp.Diff(names, again); diff != "" {
			t.Fatalf("not deterministic (-first +second):\n%s", diff)
		}
	})
}
