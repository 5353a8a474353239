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
		{body: "/optr run fast", want: slash{action: Run, request: "fast"}, isCmd: true},
		{body: "/optr run fast\nthanks!", want: slash{action: Run, request: "fast\nthanks!"}, isCmd: true},
		{body: "/optr\trun\tfast", want: slash{action: Run, request: "fast"}, isCmd: true},
		{body: "/optr run please also handle the empty input case", want: slash{action: Run, request: "please also handle the empty input case"}, isCmd: true},
		{body: "/optr run\r\nplease also handle\r\nthe empty input", want: slash{action: Run, request: "please also handle\nthe empty input"}, isCmd: true},
		{body: "/optr run Fast ../x", want: slash{action: Run, request: "Fast ../x"}, isCmd: true},
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

// The first word of a request names a pipeline only when the config has
// one of that name; anything else is the request's own.
func TestTakePipeline(t *testing.T) {
	t.Parallel()
	configured := func(name string) bool { return name == "fast" || name == "research" }
	for _, tt := range []struct{ request, pipeline, wantPipeline, wantRequest string }{
		{"", "", "", ""},
		{"fast", "", "fast", ""},
		{"fast\nthanks!", "", "fast", "thanks!"},
		{"research also read the RFC", "fast", "research", "also read the RFC"},
		{"please also handle the empty input case", "", "", "please also handle the empty input case"},
		{"please also handle it", "fast", "fast", "please also handle it"},
		{"Fast please", "", "", "Fast please"},
		{"faster please", "", "", "faster please"},
	} {
		trig := Trigger{Request: tt.request, Pipeline: tt.pipeline}
		trig.TakePipeline(configured)
		if trig.Pipeline != tt.wantPipeline || trig.Request != tt.wantRequest {
			t.Errorf("TakePipeline of %q (pipeline %q) = %q, %q; want %q, %q", tt.request, tt.pipeline, trig.Pipeline, trig.Request, tt.wantPipeline, tt.wantRequest)
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
			if got.request != strings.TrimSpace(got.request) {
				t.Fatalf("request %q is not trimmed", got.request)
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
