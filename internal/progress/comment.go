package progress

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/status"
)

// Size budgets of the progress comment's parts, in characters. Together
// with the fixed parts they stay well under comment.MaxBody, so that the
// result gets what is left and comment.Fit never has to cut blindly.
const (
	checklistBudget  = 20_000
	tableBudget      = 28_000
	messageLimit     = 4_000
	noteLimit        = 200
	detailsLimit     = 8_000 // a mode's summary or stage checklist
	inlineResultMax  = 3_000 // a longer π* is collapsed
	inlineResultRows = 40
	// reserve covers the headings and links around the result block.
	reserve = 600
)

// Comment renders the progress comment (architecture §4.6): the hidden marker on
// the first line, a status line, a checklist of the agents with their state
// and time and, once the run is no longer running, the score table, π*
// (collapsed when long, pointing to ResultPath), the ledger hash and the
// commit. The result is at most comment.MaxBody characters, whatever the
// size of the result or the number of agents.
func Comment(v View) string {
	var b strings.Builder
	b.WriteString(comment.Marker(comment.KindRun, v.RunID) + "\n")
	b.WriteString(heading("###", v) + "\n")
	b.WriteString(subline(v) + "\n\n")

	if v.Message != "" {
		b.WriteString(message(v) + "\n\n")
	}
	if v.Status == status.Paused && v.CheckpointID != "" {
		b.WriteString("Paused at checkpoint " + markdown.Code(v.CheckpointID) + ": answer it with `/optr choose N [note]` (see the checkpoint comment).\n\n")
	}
	b.WriteString(checklist(v))
	if v.Details != "" {
		b.WriteString("\n" + markdown.Truncate(v.Details, detailsLimit) + "\n")
	}

	if v.Status != status.Running {
		if t, left := table(v.Table, v.Selected, tableBudget); t != "" {
			b.WriteString("\n#### Selection\n\n" + t)
			if left > 0 {
				b.WriteString("\n" + moreRows(left, v.ResultPath))
			}
		}
		b.WriteString(TieBreakLine(v.TieBreak))
		b.WriteString(UnverifiedLine(v.Unverified))
		b.WriteString(sandboxLines(v))
		footer := footer(v)
		room := comment.MaxBody - utf8.RuneCountInString(b.String()) - utf8.RuneCountInString(footer) - reserve
		b.WriteString(result(v, room))
		b.WriteString(footer)
	}
	return comment.Fit(b.String(), v.ResultPath)
}

// maxSandboxNotes bounds the sandbox notes a comment shows.
const maxSandboxNotes = 8

// sandboxLines is what the run's sandbox held (architecture §4.14): its one
// line, and what did not hold, folded.
func sandboxLines(v View) string {
	if v.Sandbox == "" {
		return ""
	}
	s := "\n" + markdown.Inline(v.Sandbox, 200) + "\n"
	if len(v.SandboxNotes) == 0 {
		return s
	}
	s += "<details><summary>What the sandbox did not hold here</summary>\n\n"
	for i, n := range v.SandboxNotes {
		if i == maxSandboxNotes {
			s += fmt.Sprintf("- and %d more (the job log has them all)\n", len(v.SandboxNotes)-i)
			break
		}
		s += "- " + markdown.Inline(n, 600) + "\n"
	}
	return s + "\n</details>\n"
}

var statusIcon = map[status.Status]string{
	status.Running:   "⏳",
	status.Completed: "✅",
	status.Paused:    "⏸️",
	status.Failed:    "❌",
	status.Skipped:   "⏭️",
}

// heading is "<level> <icon> optr run `id` — status".
func heading(level string, v View) string {
	h := level + " "
	if icon := statusIcon[v.Status]; icon != "" {
		h += icon + " "
	}
	h += "optr run " + markdown.Code(v.RunID)
	if v.Status != "" {
		h += " — " + markdown.Inline(string(v.Status), 20)
	}
	return h
}

// subline is the workflow, how many agents are done, and the run's time.
func subline(v View) string {
	parts := []string{"Workflow " + markdown.Code(v.Workflow)}
	if n := len(v.Agents); n > 0 {
		done := 0
		for _, a := range v.Agents {
			if agentDone(a.State) {
				done++
			}
		}
		parts = append(parts, fmt.Sprintf("%d of %d agents done", done, n))
	}
	if !v.Started.IsZero() && !v.Finished.IsZero() {
		parts = append(parts, "took "+Duration(v.Finished.Sub(v.Started)))
	}
	if link := link("Actions run", v.RunURL); link != "" {
		parts = append(parts, link)
	}
	return strings.Join(parts, " · ")
}

func message(v View) string {
	label := "Note"
	switch v.Status {
	case status.Failed:
		label = "Why it failed"
	case status.Paused:
		label = "Why it paused"
	case status.Skipped:
		label = "Why it was skipped"
	}
	msg := v.Message
	if utf8.RuneCountInString(msg) > messageLimit {
		msg = markdown.Truncate(msg, messageLimit) + "\n… (cut)"
	}
	return "**" + label + ":**\n\n" + markdown.Untrusted(msg)
}

// checklist renders one task-list line per agent, within checklistBudget;
// once the run is over and there are many agents it is collapsed.
func checklist(v View) string {
	if len(v.Agents) == 0 {
		return ""
	}
	var b strings.Builder
	used := 0
	for i, a := range v.Agents {
		line := agentLine(a)
		if n := utf8.RuneCountInString(line); used+n > checklistBudget {
			fmt.Fprintf(&b, "- … and %d more agents\n", len(v.Agents)-i)
			break
		} else {
			used += n
		}
		b.WriteString(line)
	}
	if v.Status != status.Running && len(v.Agents) > 10 {
		return fmt.Sprintf("<details><summary>Agents (%d)</summary>\n\n%s\n</details>\n", len(v.Agents), b.String())
	}
	return b.String()
}

// agentLine is "- [x] **name** (provider) — succeeded in 2.1s": a ticked
// box when it succeeded, an open one while it is not done, and a cross, not
// a box, when it failed, so that a failed agent never reads as one still to
// come.
func agentLine(a AgentLine) string {
	box := "- [ ] "
	switch {
	case a.State == status.Succeeded:
		box = "- [x] "
	case agentDone(a.State):
		box = "- ❌ "
	}
	s := box + "**" + markdown.Inline(a.Name, 64) + "**"
	if a.Provider != "" {
		s += " (" + markdown.Inline(a.Provider, 40) + ")"
	}
	s += " — " + markdown.Inline(string(a.State), 20)
	if d := Duration(a.Elapsed); d != "" {
		if agentDone(a.State) {
			s += " in " + d
		} else if a.State != status.Queued {
			s += " for " + d
		}
	}
	if a.Attempts > 1 {
		if agentDone(a.State) {
			s += fmt.Sprintf(" (%d attempts)", a.Attempts)
		} else {
			s += fmt.Sprintf(" (attempt %d)", a.Attempts)
		}
	}
	if a.Note != "" {
		s += " · " + markdown.Inline(a.Note, noteLimit)
	}
	return s + "\n"
}

// result renders π* in at most room characters: inline when short, else
// collapsed, and only a pointer to ResultPath when there is no room.
func result(v View, room int) string {
	if v.Selected == "" {
		if len(v.Table) > 0 && v.Status != status.Running {
			return "\nNo result was selected.\n"
		}
		return ""
	}
	title := "\n#### π\\* — " + markdown.Inline(v.Selected, 64) + "\n\n"
	where := ""
	if v.ResultPath != "" {
		where = markdown.Code(v.ResultPath)
		if l := link(where, v.ResultURL); l != "" {
			where = l
		}
	}
	pointer := ""
	if where != "" {
		pointer = "The whole result is in " + where + ".\n"
	}
	text := markdown.Defang(strings.ToValidUTF8(v.Result, "\uFFFD"))
	switch {
	case text == "":
		return title + "_The selected agent returned no text._\n" + pointer
	case utf8.RuneCountInString(text) <= min(inlineResultMax, room) && strings.Count(text, "\n") < inlineResultRows:
		return title + markdown.Fence(text) + "\n" + pointer
	case room > 1000:
		return title + collapse(text, room, where) + "\n"
	default:
		if pointer == "" {
			pointer = "The result is too long to show here.\n"
		}
		return title + pointer
	}
}

// collapse renders text with markdown.Collapse in at most room characters.
// Collapse bounds the text, but its fence grows with the longest run of
// backticks inside, so the limit shrinks until the whole block fits.
func collapse(text string, room int, where string) string {
	limit := room - 200
	for {
		block := markdown.Collapse("Show the result", text, limit, where)
		n := utf8.RuneCountInString(block)
		if n <= room || limit <= 0 {
			return block
		}
		limit = limit*room/n - 100
	}
}

// footer links the ledger entry and the commit.
func footer(v View) string {
	var parts []string
	if v.LedgerHash != "" {
		parts = append(parts, "Ledger "+markdown.Code(v.LedgerHash))
	}
	if v.Commit != "" {
		c := markdown.Code(shortHash(v.Commit))
		if l := link(c, v.CommitURL); l != "" {
			c = l
		}
		parts = append(parts, "commit "+c)
	}
	if v.PullRequest > 0 {
		pr := fmt.Sprintf("#%d", v.PullRequest)
		if l := link(pr, v.PullRequestURL); l != "" {
			pr = l
		}
		parts = append(parts, "pull request "+pr)
	}
	if len(parts) == 0 {
		return ""
	}
	out := "\n" + strings.Join(parts, " · ") + "\n"
	if v.LedgerCheckpoint != "" {
		out += "\n<details><summary>Ledger checkpoint</summary>\n\n" + markdown.Fence(v.LedgerCheckpoint) + "\n</details>\n"
	}
	return out
}

// link is [text](url), or "" unless url is an https URL.
func link(text, url string) string {
	if !strings.HasPrefix(url, "https://") {
		return ""
	}
	return "[" + text + "](" + escapeURL(url) + ")"
}

// escapeURL keeps a link destination from ending early.
func escapeURL(u string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E", "\n", "", "\r", "").Replace(u)
}
