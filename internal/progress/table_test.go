package progress

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/status"
)

func TestTableIsShared(t *testing.T) {
	t.Parallel()
	v := completedView()
	tbl := Table(v)
	if tbl == "" || !strings.Contains(Comment(v), tbl) || !strings.Contains(Summary(v), tbl) {
		t.Fatal("Comment and Summary do not both carry Table's output")
	}
	if Table(runningView()) != "" {
		t.Error("a view without rows has a table")
	}
	if n := strings.Count(tbl, "\n"); n != 2+len(v.Table) {
		t.Errorf("table has %d lines, want %d", n, 2+len(v.Table))
	}
	if strings.Count(tbl, "π\\*") != 1 {
		t.Error("π* is not marked exactly once")
	}
}

func TestTableBudget(t *testing.T) {
	t.Parallel()
	rows := make([]Row, 100)
	for i := range rows {
		rows[i] = Row{Agent: "agent", Failed: []string{strings.Repeat("x", 1000)}}
	}
	got, left := table(rows, "", 5000)
	if len([]rune(got)) > 5000 || left == 0 || strings.Count(got, "\n")-2 != 100-left {
		t.Errorf("table(budget 5000) = %d characters, %d rows left out", len([]rune(got)), left)
	}
	if all, left := table(rows, "", -1); left != 0 || strings.Count(all, "\n") != 102 {
		t.Errorf("table without a budget left %d rows out", left)
	}
}

func TestTextTable(t *testing.T) {
	t.Parallel()
	rows := []Row{
		{Agent: "codex", Admissible: true, Score: 87.5, ExecMS: 2100, Tokens: tokens(1234567), CostUSD: ptr(0.5)},
		{Agent: "evil\x1b[31m\tagent", Failed: []string{"bad\x1b]0;title\x07\nthing"}, Score: -1},
	}
	got := TextTable(rows, "codex")
	want := "" +
		"    AGENT            OK   SCORE  TTV  EXEC  TOKENS     COST   INVARIANTS  FAILED\n" +
		"π*  codex            yes  87.5   -    2.1s  1,234,567  $0.50  -           -\n" +
		"    evil [31m agent  no   -      -    -     -          -      -           bad ]0;title thing\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TextTable mismatch (-want +got):\n%s", diff)
	}
	if strings.ContainsAny(got, "\x1b\x07\t") {
		t.Error("control characters reached the terminal")
	}
}

func TestFormatting(t *testing.T) {
	t.Parallel()
	tests := []struct{ got, want string }{
		{Duration(0), ""},
		{Duration(850e6), "850ms"},
		{Duration(2100e6), "2.1s"},
		{Duration(65e9), "1m5s"},
		{ms(0), "—"},
		{ms(1500), "1.5s"},
		{Thousands(0), "—"},
		{Thousands(999), "999"},
		{Thousands(1000), "1,000"},
		{Thousands(-1234567), "-1,234,567"},
		{usd(nil), "-"},
		{usd(ptr(0)), "$0.00"},
		{usd(ptr(0.01234)), "$0.01234"},
		{markdown.Code("a`b"), "``a`b``"},
		{markdown.Code("`x`"), "`` `x` ``"},
		{markdown.Code("line\nbreak"), "`line break`"},
		{markdown.Inline("a|b*c_d", 100), `a\|b\*c_d`},
		{markdown.Inline("@me #3", 100), "@\u200bme #\u200b3"},
		{markdown.Inline("one\n\ntwo\x00three", 100), "one two three"},
		{markdown.Inline("abcdef", 4), "abc…"},
		{markdown.Defang("<!-- optr:run=1 --> <!--optr:x"), "<!-- optr\u200b:run=1 --> <!--optr\u200b:x"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("case %d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

// TestTextTableShowsWhyAnAgentGaveNoResult: the FAILED cell of an agent
// without a result is the end of its error, not "-".
func TestTextTableShowsWhyAnAgentGaveNoResult(t *testing.T) {
	t.Parallel()
	rows := []Row{
		{Agent: "good", Admissible: true, Score: 80},
		{Agent: "broken", Error: "agent broken escalated after 1 attempt(s): systematic exit_status: sh exited with status 3; the end of stderr:\nbroken: cannot reach\x1b[2K the model\n"},
		{Agent: "api", Error: "agent api failed: Post \"http://127.0.0.1:9/v1\": connection refused"},
	}
	got := TextTable(rows, "good")
	want := "" +
		"    AGENT   OK   SCORE  TTV  EXEC  TOKENS  COST  INVARIANTS  FAILED\n" +
		"π*  good    yes  80.0   -    -     -       -     -           -\n" +
		"    broken  no   -      -    -     -       -     -           broken: cannot reach [2K the model\n" +
		"    api     no   -      -    -     -       -     -           agent api failed: Post \"http://127.0.0.1:9/v1\": connection refused\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TextTable mismatch (-want +got):\n%s", diff)
	}
}

// A score shows where it competes: once a result is admissible, an
// inadmissible result's score (higher here: it passed the constraints
// it scored on) is "—", in the terminal's table and the Markdown one;
// with none admissible every score shows, as least-bad compares them.
func TestInadmissibleScoresDoNotCompete(t *testing.T) {
	t.Parallel()
	rows := []Row{
		{Agent: "good", Admissible: true, Score: 54.4},
		{Agent: "sloppy", Score: 70, Failed: []string{"no-todo"}},
	}
	if got := TextTable(rows, "good"); !strings.Contains(got, "good    yes  54.4") || !strings.Contains(got, "sloppy  no   -      ") || strings.Contains(got, "70.0") {
		t.Errorf("TextTable shows an inadmissible score beside π*'s:\n%s", got)
	}
	if got, _ := table(rows, "good", -1); !strings.Contains(got, "| sloppy | no | — |") || strings.Contains(got, "70.0") {
		t.Errorf("table shows an inadmissible score beside π*'s:\n%s", got)
	}
	rows[0].Admissible = false
	if got := TextTable(rows, "sloppy"); !strings.Contains(got, "54.4") || !strings.Contains(got, "70.0") {
		t.Errorf("with none admissible, TextTable hides the scores least-bad compares:\n%s", got)
	}
}

// TestTableSaysWhenATTVClaimWasBounded: a TTV raised to the agent's first
// output says what the agent claimed (issue 22 item 7).
func TestTableSaysWhenATTVClaimWasBounded(t *testing.T) {
	t.Parallel()
	rows := []Row{
		{Agent: "liar", Admissible: true, TTVms: 1000, TTVClaimedMS: 1, ExecMS: 1000, Score: 50},
		{Agent: "honest", Admissible: true, TTVms: 17, ExecMS: 17, Score: 90},
	}
	md := Table(View{Table: rows, Selected: "honest"})
	if !strings.Contains(md, "(claimed 1ms)") || strings.Count(md, "claimed") != 1 {
		t.Errorf("the Markdown table does not say which claim was bounded:\n%s", md)
	}
	if text := TextTable(rows, "honest"); !strings.Contains(text, "claimed 1ms") {
		t.Errorf("the terminal table does not say which claim was bounded:\n%s", text)
	}
}

// TestMarkdownTableShowsWhyAnAgentGaveNoResult checks issue 22 item 12:
// the step summary's and the comment's Failed column showed "—" for an
// agent that failed; it shows why, inert.
func TestMarkdownTableShowsWhyAnAgentGaveNoResult(t *testing.T) {
	t.Parallel()
	rows := []Row{
		{Agent: "good", Admissible: true, Score: 80},
		{Agent: "broken", Error: "agent broken escalated: the end of stderr:\nbroken: cannot reach the *model* <b>\n"},
	}
	md := Table(View{Table: rows, Selected: "good"})
	line := strings.Split(md, "\n")[3]
	if !strings.Contains(line, `broken: cannot reach the \*model\* \<b>`) || strings.HasSuffix(line, "| — |") {
		t.Errorf("the failed agent's row does not say why:\n%s", md)
	}
}

// TestUnverifiedConstraintsAreShown checks issue 22 item 9: a constraint
// the intent names that nothing checks was never mentioned; the summary's
// table, the comment and the terminal say so.
func TestUnverifiedConstraintsAreShown(t *testing.T) {
	t.Parallel()
	v := View{Status: status.Completed, Table: []Row{{Agent: "good", Admissible: true, Score: 80}}, Selected: "good", Unverified: []string{"cites-sources"}}
	for name, out := range map[string]string{"table": Table(v), "comment": Comment(v), "summary": Summary(v)} {
		if !strings.Contains(out, "**Not verified**: `cites-sources`") {
			t.Errorf("the %s does not say cites-sources was not verified:\n%s", name, out)
		}
	}
	v.Unverified = nil
	if strings.Contains(Comment(v), "Not verified") {
		t.Error("a run whose constraints were all checked says some were not")
	}
}
