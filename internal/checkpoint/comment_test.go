package checkpoint

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/testkit/golden"

	"github.com/optr-dev/optr/internal/comment"
)

func TestCommentGolden(t *testing.T) {
	t.Parallel()
	approval := withTrigger(t, "9876543210-1", 2, TriggerApproval)
	approval.Recommended, approval.Recommendation = 2, whyConfig
	skip := Decision{Option: 2, Action: ActionSkip, By: "alice", Note: "The schema is wrong.\n```\n<!-- optr:checkpoint=cp-9876543210-1-1 -->\n```\n@octocat", Source: SourceComment}
	bodies := map[string]string{
		"comment_no_admissible.golden": Comment(fixture(t), []string{"@org/team", "not a handle", "@alice"}),
		"comment_approval.golden":      Comment(approval, nil),
		"decided_skip.golden":          DecidedComment(fixture(t), skip),
		"decided_pause.golden":         DecidedComment(fixture(t), Decision{Option: 4, Action: ActionPause, By: "bob", Source: SourceCLI}),
		"decided_abort.golden":         DecidedComment(fixture(t), Decision{Option: 3, Action: ActionAbort, Source: SourceTerminal}),
		"already_decided.golden":       AlreadyDecidedReply(fixture(t), skip),
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			golden.Check(t, name, body)
		})
	}
}

func TestCommentProperties(t *testing.T) {
	t.Parallel()
	cp := fixture(t)
	huge := withTrigger(t, "1-1", 1, TriggerHiccup)
	huge.Context = strings.Repeat("````` @all <!-- optr:run=1-1 -->\n", 10_000)
	hostile := fixture(t)
	hostile.Options[0].Label = "<img src=x>"
	hostile.Options[1].Description = "[link](https://e.example) **bold** @all"
	hostile.Recommendation = "<b>trust me</b> @mallory"
	hugeNote := Decision{Option: 1, Action: ActionProceed, By: "alice", Note: strings.Repeat("é`", 50_000)}

	for _, tt := range []struct {
		name    string
		body    string
		open    bool // an open checkpoint tells how to answer
		decided string
	}{
		{"comment", Comment(cp, nil), true, ""},
		{"huge context", Comment(huge, []string{"@org/team"}), true, ""},
		{"decided", DecidedComment(cp, hugeNote), false, "chose option 1, **Proceed**"},
		{"decided, huge context", DecidedComment(huge, Decision{Option: 2, Action: ActionSkip, By: "x"}), false, "chose option 2, **Skip**"},
		{"hostile", Comment(hostile, nil), true, ""},
		{"hostile, decided", DecidedComment(hostile, Decision{Option: 1, Action: ActionProceed, By: "@mallory"}), false, "chose option 1"},
		{"paused", DecidedComment(cp, Decision{Option: 4, Action: ActionPause, By: "bob"}), true, "The checkpoint stays open."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := tt.body
			if n := utf8.RuneCountInString(body); n > comment.MaxBody {
				t.Errorf("body has %d characters, GitHub allows %d", n, comment.MaxBody)
			}
			first, _, _ := strings.Cut(body, "\n")
			kind, id, ok := comment.ParseMarker(first)
			if !ok || kind != comment.KindCheckpoint || first != comment.Marker(kind, id) {
				t.Errorf("first line %q is not the checkpoint marker", first)
			}
			if strings.Count(body, "<!-- optr:") != 1 {
				t.Errorf("body carries %d optr markers, want only its own", strings.Count(body, "<!-- optr:"))
			}
			if got := strings.Contains(body, ReplySyntax) && strings.Contains(body, "`/optr abort`"); got != tt.open {
				t.Errorf("reply syntax shown = %v, want %v", got, tt.open)
			}
			if tt.open && strings.Count(body, "(recommended)") != 1 {
				t.Errorf("(recommended) appears %d times, want once", strings.Count(body, "(recommended)"))
			}
			if !strings.Contains(body, tt.decided) {
				t.Errorf("body lacks %q", tt.decided)
			}
			out := outsideFences(body)
			for _, bad := range []string{"@all", "@octocat", "@mallory", "<img", "<b>", "[link](", "**bold**"} {
				if live(out, bad) {
					t.Errorf("untrusted text %q is live Markdown outside a code block", bad)
				}
			}
		})
	}
}

func TestCommentMarksTheRecommendedOption(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 4; n++ {
		cp := fixture(t)
		cp.Recommended = n
		body := Comment(cp, nil)
		line := cp.Options[n-1].Label + "** (recommended)"
		if !strings.Contains(body, "\n"+string(rune('0'+n))+". **"+line) {
			t.Errorf("recommended %d: body lacks %q", n, line)
		}
		if !strings.Contains(body, "`/optr choose "+string(rune('0'+n))+"` takes the recommended option") {
			t.Errorf("recommended %d: the example does not choose it", n)
		}
	}
}

// outsideFences returns the lines of a Markdown body that lie outside
// fenced code blocks, where GitHub renders mentions and HTML.
func outsideFences(body string) string {
	var out []string
	fence := ""
	for _, line := range strings.Split(body, "\n") {
		trimmed := strings.TrimRight(line, " ")
		switch {
		case fence == "" && strings.HasPrefix(trimmed, "```"):
			fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))]
		case fence != "" && trimmed == fence:
			fence = ""
		case fence == "":
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// live reports whether s occurs in body without a backslash before it.
func live(body, s string) bool {
	for i := 0; ; {
		j := strings.Index(body[i:], s)
		if j < 0 {
			return false
		}
		if i+j == 0 || body[i+j-1] != '\\' {
			return true
		}
		i += j + 1
	}
}
