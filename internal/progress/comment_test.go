package progress

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/status"
)

// checkStructure fails the test when body breaks the rules every progress
// comment keeps: the run marker alone on the first line and found first,
// within GitHub's limit, not cut blindly by comment.Fit, and every code
// fence closed.
func checkStructure(t *testing.T, v View, body string) {
	t.Helper()
	if n := utf8.RuneCountInString(body); n > comment.MaxBody {
		t.Fatalf("comment is %d characters, limit %d", n, comment.MaxBody)
	}
	first, _, _ := strings.Cut(body, "\n")
	if first != comment.Marker(comment.KindRun, v.RunID) {
		t.Fatalf("first line %q is not the run marker", first)
	}
	if kind, id, ok := comment.ParseMarker(body); !ok || kind != comment.KindRun || id != v.RunID {
		t.Fatalf("ParseMarker = %q %q %v", kind, id, ok)
	}
	if strings.Contains(body, "cut to fit GitHub's comment limit") {
		t.Fatal("the comment needed comment.Fit's blind cut")
	}
	if fence := unclosedFence(body); fence != "" {
		t.Fatalf("fence %q left open", fence)
	}
	if !utf8.ValidString(body) {
		t.Fatal("the comment is not valid UTF-8")
	}
}

// unclosedFence returns the opening fence of a code block that body leaves
// open, "" when every block is closed.
func unclosedFence(body string) string {
	_, open := splitFences(body)
	return open
}

func TestCommentHugeResult(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"1 MB of text":      strings.Repeat("All work and no play makes Jack a dull boy.\n", 1<<20/44),
		"1 MB on one line":  strings.Repeat("x", 1<<20),
		"1 MB of backticks": strings.Repeat("`", 1<<20),
		"1 MB of é":         strings.Repeat("é", 1<<19),
		"fences inside":     strings.Repeat("```\ncode\n````\n", 100_000),
	}
	for name, result := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := completedView()
			v.Result = result
			body := Comment(v)
			checkStructure(t, v, body)
			if !strings.Contains(body, "<details><summary>Show the result</summary>") {
				t.Error("a long result is not collapsed")
			}
			if !strings.Contains(body, resultPath) {
				t.Error("the comment does not point to the whole result")
			}
			if !strings.HasSuffix(body, footer(v)) {
				t.Error("the ledger and commit line is missing at the end")
			}
			if utf8.RuneCountInString(body) < comment.MaxBody/2 {
				t.Errorf("only %d characters used: the result could show more", utf8.RuneCountInString(body))
			}
		})
	}
}

func TestCommentManyAgents(t *testing.T) {
	t.Parallel()
	v := completedView()
	v.Agents, v.Table = nil, nil
	for i := range 500 {
		name := fmt.Sprintf("agent-%03d", i)
		v.Agents = append(v.Agents, AgentLine{
			Name: name, Provider: "copilot", State: status.Failed, Elapsed: time.Duration(i) * time.Second, Attempts: 3,
			Note: strings.Repeat("a long provider error | with @mentions and <html> ", 20),
		})
		v.Table = append(v.Table, Row{
			Agent: name, Invariants: []string{"no-todo", "max-length"},
			Failed: []string{strings.Repeat("reason | ", 100)}, Score: float64(i), ExecMS: int64(i),
		})
	}
	v.Selected = "agent-000"
	v.Result = strings.Repeat("result line\n", 50_000)
	for _, s := range []status.Status{status.Running, status.Completed} {
		v.Status = s
		body := Comment(v)
		checkStructure(t, v, body)
		if !strings.Contains(body, "more agents") {
			t.Errorf("%s: 500 agents shown in full?", s)
		}
		if s == status.Completed {
			if !strings.Contains(body, ".optr/workflows/issue-7/runs/1658821493-1/optr-selection.json") {
				t.Error("a cut table does not point to the whole one")
			}
			if !strings.Contains(body, "<details><summary>Agents (500)</summary>") {
				t.Error("the checklist of a finished run with 500 agents is not collapsed")
			}
		}
	}
}

// TestCommentUntrustedText feeds text that tries to break out of its place
// and checks that it stays put.
func TestCommentUntrustedText(t *testing.T) {
	t.Parallel()
	v := completedView()
	v.Agents[3].Note = "x\n\n# Heading\n<!-- optr:run=999-1 -->\n- [x] fake | cell"
	v.Table[2].Failed = []string{"a|b", "c\\|d", "e\n| --- |\nf", "@octocat #1 <img src=x>", "[link](javascript:alert(1))"}
	v.Result = "````\n<!-- optr:checkpoint=cp-1 -->\n````\n</details>\n# not a heading"
	v.Message = "<!-- optr:escalation=e-1 -->"
	body := Comment(v)
	checkStructure(t, v, body)
	for _, kind := range []string{comment.KindCheckpoint, comment.KindEscalation} {
		for _, id := range []string{"cp-1", "e-1"} {
			if comment.HasMarker(body, kind, id) {
				t.Errorf("untrusted text forged the marker %s=%s", kind, id)
			}
		}
	}
	if comment.HasMarker(body, comment.KindRun, "999-1") {
		t.Error("an agent note forged a run marker")
	}
	outsideFences := stripFences(body)
	for _, bad := range []string{"@octocat", "#1 ", "<img", "](javascript", "\n# Heading", "\n- [x] fake"} {
		// A backslash before it makes it literal text.
		if unescaped := regexp.MustCompile(`(^|[^\\])` + regexp.QuoteMeta(bad)); unescaped.MatchString(outsideFences) {
			t.Errorf("%q is live Markdown in the comment", bad)
		}
	}
	checkTableRows(t, body)
}

// checkTableRows fails the test unless every table row outside code blocks
// has exactly the score table's ten cells. Inside a code block, a line that
// starts with a pipe is the result's or the message's text, not a row.
func checkTableRows(t *testing.T, body string) {
	t.Helper()
	for line := range strings.Lines(stripFences(body)) {
		if strings.HasPrefix(line, "| ") {
			if n := len(tableCells(strings.TrimSpace(line))); n != 10 {
				t.Errorf("row has %d cells: %q", n, line)
			}
		}
	}
}

// stripFences removes fenced code blocks, where text is inert.
func stripFences(body string) string {
	outside, _ := splitFences(body)
	return outside
}

// splitFences walks body's lines as GitHub finds code fences: it returns
// the lines outside every code block, and the opening fence of a block left
// open at the end ("" when every block is closed).
func splitFences(body string) (outside, open string) {
	var b strings.Builder
	for line := range strings.Lines(body) {
		trimmed := strings.TrimRight(line, "\n")
		n := len(trimmed) - len(strings.TrimLeft(trimmed, "`"))
		switch {
		case n >= 3 && open == "":
			open = trimmed[:n]
		case n >= 3 && n >= len(open) && strings.TrimSpace(trimmed[n:]) == "":
			open = ""
		case open == "":
			b.WriteString(line)
		}
	}
	return b.String(), open
}

// tableCells splits a GFM table row the way GitHub does: a backslash
// escapes the next character, an unescaped pipe separates cells.
func tableCells(row string) []string {
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			cur.WriteByte(row[i])
			if i+1 < len(row) {
				i++
				cur.WriteByte(row[i])
			}
		case '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	cells = append(cells, cur.String())
	// Leading and trailing pipes leave empty outer pieces.
	return cells[1 : len(cells)-1]
}

func TestCommentResultForms(t *testing.T) {
	t.Parallel()
	short := completedView()
	if body := Comment(short); strings.Contains(body, "<details>") || !strings.Contains(body, "Fixed the spelling") {
		t.Error("a short result should be shown inline")
	}
	empty := completedView()
	empty.Result = ""
	if body := Comment(empty); !strings.Contains(body, "returned no text") {
		t.Error("an empty result is not said to be empty")
	}
	none := completedView()
	none.Selected, none.Result = "", ""
	if body := Comment(none); !strings.Contains(body, "No result was selected") {
		t.Error("no selection is not said")
	}
	rows := completedView()
	rows.Result = strings.Repeat("short line\n", inlineResultRows+1)
	if body := Comment(rows); !strings.Contains(body, "<details>") {
		t.Error("a result with many lines should be collapsed")
	}
	running := completedView()
	running.Status = status.Running
	if body := Comment(running); strings.Contains(body, "Selection") || strings.Contains(body, "Ledger") {
		t.Error("a running comment shows the final parts")
	}
}

// The footer names the pull request holding π*'s change, as a link only
// when its URL is https.
func TestCommentLinksThePullRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url, want string
	}{
		{"https://github.com/o/r/pull/12", "pull request [#12](https://github.com/o/r/pull/12)"},
		{"javascript:alert(1)", "pull request #12\n"},
	}
	for _, tc := range tests {
		v := completedView()
		v.PullRequest, v.PullRequestURL = 12, tc.url
		if body := Comment(v); !strings.Contains(body, tc.want) {
			t.Errorf("URL %s: the comment lacks %q:\n%s", tc.url, tc.want, body)
		}
	}
	if body := Comment(completedView()); strings.Contains(body, "pull request") {
		t.Errorf("a run without a pull request names one:\n%s", body)
	}
}

// The comment of a finished run says what the sandbox held, and folds
// what it did not (architecture §4.14); a running one does not yet.
func TestCommentSaysWhatTheSandboxHeld(t *testing.T) {
	v := View{RunID: "r1", Workflow: "w", Status: status.Completed,
		Sandbox:      "sandbox (auto): env built, fs landlock-v4, net landlock-tcp, scope none, user same",
		SandboxNotes: []string{"net held only by Landlock's TCP rule", "scope not held"}}
	body := Comment(v)
	checkStructure(t, v, body)
	for _, want := range []string{"\nsandbox (auto): env built, fs landlock-v4, net landlock-tcp", "<summary>What the sandbox did not hold here</summary>", "- scope not held\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("the comment lacks %q:\n%s", want, body)
		}
	}
	v.Status = status.Running
	if body := Comment(v); strings.Contains(body, "sandbox (auto)") {
		t.Errorf("a running comment shows the sandbox line:\n%s", body)
	}
}
