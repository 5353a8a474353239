package progress

import (
	"fmt"
	"path"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/markdown"
)

// cellLimit bounds the text of one table cell, in characters.
const cellLimit = 300

// Table renders v's score table as Markdown, in the order given, with π*
// marked, and threat detection's verdict under it; "" when there is no
// table yet. Comment and Summary both use it.
func Table(v View) string {
	s, _ := table(v.Table, v.Selected, -1)
	if s == "" {
		return ""
	}
	return s + TieBreakLine(v.TieBreak) + DetectionLines(v.Detection) + UnverifiedLine(v.Unverified)
}

// TieBreakLine says how outcomes broke a tie of scores; "" when they did
// not. The text names agents, so it is shown inline, escaped.
func TieBreakLine(why string) string {
	if why == "" {
		return ""
	}
	return "\n**Tie**: " + markdown.Inline(why, cellLimit*2) + "\n"
}

// UnverifiedLine says which constraints nothing checked, and why they
// neither block nor score; "" when every constraint was checked.
func UnverifiedLine(names []string) string {
	if len(names) == 0 {
		return ""
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = markdown.Code(n)
	}
	return "\n**Not verified**: " + strings.Join(quoted, ", ") + " — the intent names them, but the config defines no constraint of that name and no judge agent is configured, so they neither block nor score. Define them under `constraints:` (or configure a judge) to check them.\n"
}

// maxDetectionLines bounds the findings shown under a table.
const maxDetectionLines = 20

// DetectionLines renders threat detection's verdict as Markdown lines,
// each finding on its own; "" when nothing was scanned.
func DetectionLines(d *Detection) string {
	if d == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n**Threat detection** (%s): %s", markdown.Inline(d.Agent, 64), d.Verdict)
	if len(d.Findings) == 0 {
		b.WriteString(", nothing found.\n")
		return b.String()
	}
	fmt.Fprintf(&b, ", %d findings:\n", len(d.Findings))
	for i, f := range d.Findings {
		if i == maxDetectionLines {
			fmt.Fprintf(&b, "- … %d more, in the run's optr-selection.json and ledger entry\n", len(d.Findings)-i)
			break
		}
		b.WriteString("- " + markdown.Inline(f, cellLimit) + "\n")
	}
	return b.String()
}

const tableHeader = "| | Agent | Admissible | Score | TTV | Exec | Tokens | Cost | Invariants | Failed |\n" +
	"|---|---|---|--:|--:|--:|--:|--:|---|---|\n"

// table renders rows as a Markdown table in at most budget characters
// (no bound when budget < 0). It returns the table and how many rows were
// left out to keep within budget.
func table(rows []Row, selected string, budget int) (string, int) {
	if len(rows) == 0 {
		return "", 0
	}
	var b strings.Builder
	b.WriteString(tableHeader)
	used := utf8.RuneCountInString(tableHeader)
	admissible := anyAdmissible(rows)
	for i, r := range rows {
		line := tableRow(r, r.Agent == selected && selected != "", admissible)
		n := utf8.RuneCountInString(line)
		if budget >= 0 && used+n > budget {
			return b.String(), len(rows) - i
		}
		b.WriteString(line)
		used += n
	}
	return b.String(), 0
}

func tableRow(r Row, selected, anyAdmissible bool) string {
	mark, name := "", markdown.Inline(r.Agent, 64)
	if selected {
		mark, name = "π\\*", "**"+name+"**"
	}
	admissible := "no"
	if r.Admissible {
		admissible = "yes"
	}
	return "| " + strings.Join([]string{
		mark, name, admissible, score(r, anyAdmissible), ttv(r), ms(r.ExecMS),
		tokensCell(r), costCell(r), list(r.Invariants, ", "), failedMarkdown(r),
	}, " | ") + " |\n"
}

// anyAdmissible reports whether any row passed every hard constraint.
func anyAdmissible(rows []Row) bool {
	for _, r := range rows {
		if r.Admissible {
			return true
		}
	}
	return false
}

// score renders the Score cell: a score only where it competes. Once a
// result is admissible, an inadmissible one's score (which may be higher:
// it scores the constraints it did pass) is "—", as is that of an agent
// that gave no result; with none admissible, every result's score shows,
// as least-bad and a NO_ADMISSIBLE checkpoint compare them.
func score(r Row, anyAdmissible bool) string {
	if r.Error != "" || (anyAdmissible && !r.Admissible) {
		return "—"
	}
	return fmt.Sprintf("%.1f", r.Score)
}

// ttv renders the TTV cell: a claim raised to the agent's first output
// (it cannot have given value before it gave anything) says what was
// claimed.
func ttv(r Row) string {
	if r.TTVClaimedMS > 0 {
		return ms(r.TTVms) + " (claimed " + ms(r.TTVClaimedMS) + ")"
	}
	return ms(r.TTVms)
}

// list renders untrusted items as one table cell.
func list(items []string, sep string) string {
	if len(items) == 0 {
		return "—"
	}
	return markdown.Inline(strings.Join(items, sep), cellLimit)
}

// moreRows says that n rows were left out and where the whole table is.
func moreRows(n int, resultPath string) string {
	s := fmt.Sprintf("… %d more agents not shown", n)
	if resultPath != "" {
		s += "; the whole table is in " + markdown.Code(path.Join(path.Dir(resultPath), "optr-selection.json"))
	}
	return s + ".\n"
}

// TextTable renders rows as aligned plain text for a terminal, π* marked
// with "π*". Control characters are removed from every cell, so untrusted
// text cannot move the cursor or recolour the terminal.
func TextTable(rows []Row, selected string) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "\tAGENT\tOK\tSCORE\tTTV\tEXEC\tTOKENS\tCOST\tINVARIANTS\tFAILED")
	admissible := anyAdmissible(rows)
	for _, r := range rows {
		mark := ""
		if selected != "" && r.Agent == selected {
			mark = "π*"
		}
		ok := "no"
		if r.Admissible {
			ok = "yes"
		}
		cells := []string{
			mark, markdown.OneLine(r.Agent, 64), ok, dash(score(r, admissible)), dash(ttv(r)), dash(ms(r.ExecMS)),
			dash(tokensCell(r)), costCell(r), textList(r.Invariants, ","), failedCell(r),
		}
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "\t", " ")
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	_ = w.Flush() // writes to a strings.Builder cannot fail
	return b.String()
}

// failedMarkdown is the Markdown table's Failed cell: the constraints a
// result failed, or for an agent that gave no result, why.
func failedMarkdown(r Row) string {
	if len(r.Failed) == 0 && r.Error != "" {
		return markdown.Inline(ShortError(r.Error, cellLimit), cellLimit)
	}
	return list(r.Failed, "; ")
}

// failedCell is the FAILED cell: the constraints a result failed (a
// change's refusal by its reason), or for an agent that gave no result,
// why, cause first (executor.Result.Cause).
func failedCell(r Row) string {
	if len(r.Failed) == 0 && r.Error != "" {
		return ShortError(r.Error, 100)
	}
	return textList(r.Failed, "; ")
}

// ShortError is the most telling part of an agent's error, on one line of
// at most n characters: its last line, which for a command agent is the
// end of its stderr and otherwise the error itself.
func ShortError(err string, n int) string {
	lines := strings.Split(strings.TrimSpace(err), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	return markdown.OneLine(last, n)
}

func textList(items []string, sep string) string {
	if len(items) == 0 {
		return "-"
	}
	return markdown.OneLine(strings.Join(items, sep), 80)
}

// dash turns the Markdown tables' "—" into a terminal-friendly "-".
func dash(s string) string {
	if s == "—" {
		return "-"
	}
	return s
}
