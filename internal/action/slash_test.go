package action

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParseSlash(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body   string
		want   slash
		isCmd  bool
		reason string // for malformed commands: a part of the reason
	}{
		{body: "/optr run", want: slash{action: Run}, isCmd: true},
		{body: "  \r\n\t/optr run\r\n", want: slash{action: Run}, isCmd: true},
		{body: "/optr run fast", want: slash{action: Run, pipeline: "fast"}, isCmd: true},
		{body: "/optr run fast\nthanks!", want: slash{action: Run, pipeline: "fast"}, isCmd: true},
		{body: "/optr\trun\tfast", want: slash{action: Run, pipeline: "fast"}, isCmd: true},
		{body: "/optr choose 2 looks good", want: slash{action: Choose, choice: 2, note: "looks good"}, isCmd: true},
		{body: "/optr choose 1", want: slash{action: Choose, choice: 1}, isCmd: true},
		{body: "/optr choose 3\r\n\r\nbecause the table says so\r\nreally", want: slash{action: Choose, choice: 3, note: "because the table says so\nreally"}, isCmd: true},
		{body: "/optr choose 12 first line\nsecond", want: slash{action: Choose, choice: 12, note: "first line\nsecond"}, isCmd: true},
		{body: "/optr abort", want: slash{action: Abort}, isCmd: true},
		{body: "/optr abort wrong issue", want: slash{action: Abort, note: "wrong issue"}, isCmd: true},
		{body: "/optr choose x", isCmd: true, reason: `"x" is not an option number`},
		{body: "/optr choose", isCmd: true, reason: "missing option number"},
		{body: "/optr choose 0", isCmd: true, reason: "options start at 1"},
		{body: "/optr choose -1", isCmd: true, reason: "not an option number"},
		{body: "/optr choose +2", isCmd: true, reason: "not an option number"},
		{body: "/optr choose 2.5", isCmd: true, reason: "not an option number"},
		{body: "/optr choose 99999999999999999999", isCmd: true, reason: "not an option number"},
		{body: "/optr choose\n2", isCmd: true, reason: "missing option number"},
		{body: "/optr run Fast", isCmd: true, reason: `"Fast" is not a pipeline name`},
		{body: "/optr run ../x", isCmd: true, reason: "not a pipeline name"},
		{body: "/optr run a b", isCmd: true, reason: "at most one word"},
		{body: "/optr frobnicate", isCmd: true, reason: "unknown command /optr frobnicate; the commands are run, choose and abort"},
		{body: "/optr Run", isCmd: true, reason: "unknown command /optr Run"},
		{body: "/optr", isCmd: true, reason: "without a command"},
		{body: "/optr   \n run", isCmd: true, reason: "without a command"},
		{body: "/optrun", isCmd: false},
		{body: "/OPTR run", isCmd: false},
		{body: "please /optr run", isCmd: false},
		{body: "> /optr run", isCmd: false},
		{body: "", isCmd: false},
		{body: "You are totally right! I'll get this fixed right away.", isCmd: false},
	}
	for _, tt := range tests {
		got, ok := parseSlash(tt.body)
		if ok != tt.isCmd {
			t.Errorf("parseSlash(%q) is a command = %v, want %v", tt.body, ok, tt.isCmd)
			continue
		}
		if tt.reason != "" {
			if got.action != Skip || !strings.Contains(got.reason, tt.reason) || got.reply == "" {
				t.Errorf("parseSlash(%q) = %+v, want a skip whose reason contains %q, with a reply", tt.body, got, tt.reason)
			}
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(slash{})); diff != "" {
			t.Errorf("parseSlash(%q) mismatch (-want +got):\n%s", tt.body, diff)
		}
	}
}

func FuzzParseSlash(f *testing.F) {
	for _, s := range []string{
		"/optr run", "/optr run fast", "/optr choose 2 looks good", "/optr choose x", "/optr abort",
		"/optr frobnicate", "plain comment", " /optr", "/optr choose 1\r\nnote", "/optr run \u00a0x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		got, ok := parseSlash(body)
		if !ok {
			if got != (slash{}) {
				t.Fatalf("not a command, yet %+v", got)
			}
			if strings.HasPrefix(strings.TrimSpace(body), "/optr ") {
				t.Fatalf("%q starts with /optr and a space but was not read as a command", body)
			}
			return
		}
		switch got.action {
		case Run:
			if got.pipeline != "" && !pipelineRE.MatchString(got.pipeline) {
				t.Fatalf("pipeline %q accepted", got.pipeline)
			}
		case Choose:
			if got.choice < 1 {
				t.Fatalf("choice %d accepted", got.choice)
			}
		case Abort:
		case Skip:
			if got.reply == "" || got.reason == "" || strings.ContainsAny(got.reason, "\r\n") {
				t.Fatalf("malformed command without a one-line reason and a reply: %+v", got)
			}
			if utf8.ValidString(body) && !utf8.ValidString(got.reason) {
				t.Fatalf("reason is not valid UTF-8: %q", got.reason)
			}
		default:
			t.Fatalf("unexpected action %q", got.action)
		}
		if got.action != Skip && (got.reason != "" || got.reply != "") {
			t.Fatalf("%s with a reason or reply: %+v", got.action, got)
		}
	})
}
