package check

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/config"
)

func TestTextChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		c      config.Constraint
		output string
		want   Outcome
	}{
		{"contains present", config.Constraint{Check: "contains", Value: "LGTM"}, "review: LGTM!", Outcome{Pass: true}},
		{"contains absent", config.Constraint{Check: "contains", Value: "LGTM"}, "review: lgtm", Outcome{Reason: `output does not contain "LGTM"`}},
		{"contains unicode", config.Constraint{Check: "contains", Value: "café"}, "un café noir", Outcome{Pass: true}},
		{"contains empty output", config.Constraint{Check: "contains", Value: "x"}, "", Outcome{Reason: `output does not contain "x"`}},

		{"regex anchors are whole-text without (?m)", config.Constraint{Check: "regex", Pattern: `^## Summary$`}, "x\n## Summary\n", Outcome{Reason: "output does not match /^## Summary$/"}},
		{"regex multiline flag", config.Constraint{Check: "regex", Pattern: `(?m)^## Summary$`}, "x\n## Summary\n", Outcome{Pass: true}},
		{"regex no match", config.Constraint{Check: "regex", Pattern: `\d+`}, "none", Outcome{Reason: `output does not match /\d+/`}},

		{"not-regex clean", config.Constraint{Check: "not-regex", Pattern: `(?i)api[_-]?key\s*=`}, "nothing here", Outcome{Pass: true}},
		{"not-regex names first match", config.Constraint{Check: "not-regex", Pattern: `TODO\w*`},
			"line one\nsé TODO1 and TODO2", Outcome{Reason: `output matches /TODO\w*/ at line 2, column 4: "TODO1"`}},
		{"not-regex long match is cut", config.Constraint{Check: "not-regex", Pattern: `a+`},
			strings.Repeat("a", 200), Outcome{Reason: `output matches /a+/ at line 1, column 1: "` + strings.Repeat("a", maxQuote) + `"…`}},

		{"max-length at limit in characters", config.Constraint{Check: "max-length", Value: "5"}, "héllo", Outcome{Pass: true}},
		{"max-length counts runes not bytes", config.Constraint{Check: "max-length", Value: "3"}, "日本語", Outcome{Pass: true}},
		{"max-length emoji", config.Constraint{Check: "max-length", Value: "2"}, "👍👍👍", Outcome{Reason: "output is 3 characters long; the limit is 2"}},
		{"max-length over", config.Constraint{Check: "max-length", Value: " 10 "}, strings.Repeat("x", 11), Outcome{Reason: "output is 11 characters long; the limit is 10"}},
		{"max-length empty output", config.Constraint{Check: "max-length", Value: "1"}, "", Outcome{Pass: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ch := mustNew(t, "c", tt.c, Options{})
			got, errText := run(t, ch, tt.output)
			if errText != "" {
				t.Fatalf("Check error: %s", errText)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check(%q) (-want +got):\n%s", tt.output, diff)
			}
		})
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cname   string
		c       config.Constraint
		opts    Options
		wantSub []string
	}{
		{"invalid regex", "fmt", config.Constraint{Check: "regex", Pattern: `(unclosed`}, Options{}, []string{`constraint "fmt"`, "not a valid RE2", "missing closing )"}},
		{"perl-only regex", "fmt", config.Constraint{Check: "not-regex", Pattern: `(?<=x)y`}, Options{}, []string{`constraint "fmt"`, "not a valid RE2"}},
		{"empty pattern", "fmt", config.Constraint{Check: "regex"}, Options{}, []string{"pattern is empty"}},
		{"empty contains", "c", config.Constraint{Check: "contains"}, Options{}, []string{"value is empty"}},
		{"max-length zero", "short", config.Constraint{Check: "max-length", Value: "0"}, Options{}, []string{`constraint "short"`, "not a positive whole number"}},
		{"max-length negative", "short", config.Constraint{Check: "max-length", Value: "-3"}, Options{}, []string{"not a positive whole number"}},
		{"max-length words", "short", config.Constraint{Check: "max-length", Value: "ten"}, Options{}, []string{"not a positive whole number"}},
		{"max-length fraction", "short", config.Constraint{Check: "max-length", Value: "1.5"}, Options{}, []string{"not a positive whole number"}},
		{"schema empty", "s", config.Constraint{Check: "json-schema"}, Options{}, []string{"schema is empty"}},
		{"schema absolute", "s", config.Constraint{Check: "json-schema", Schema: "/etc/schema.json"}, Options{}, []string{"relative path inside the workspace"}},
		{"schema escapes", "s", config.Constraint{Check: "json-schema", Schema: "../schema.json"}, Options{}, []string{"relative path inside the workspace"}},
		{"command empty", "cmd", config.Constraint{Check: "command"}, Options{}, []string{"run is empty"}},
		{"judge without agent", "j", config.Constraint{Check: "judge"}, Options{}, []string{`constraint "j"`, "no judge agent"}},
		{"judge without factory", "j", config.Constraint{Check: "judge", Agent: "gpt"}, Options{}, []string{`judge agent "gpt" is not available`}},
		{"no check kind", "x", config.Constraint{}, Options{}, []string{"no check kind"}},
		{"unknown check kind", "x", config.Constraint{Check: "lint"}, Options{}, []string{`unknown check kind "lint"`}},
		{"bad name", "Bad Name", config.Constraint{Check: "json"}, Options{}, []string{"not a slug"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ch, err := New(tt.cname, tt.c, tt.opts)
			if err == nil {
				t.Fatalf("New(%q, %+v) = %T, want an error", tt.cname, tt.c, ch)
			}
			for _, sub := range tt.wantSub {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("New error %q does not contain %q", err, sub)
				}
			}
		})
	}
}
