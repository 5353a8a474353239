package checkpoint

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/markdown"
)

// Size limits of the comment's untrusted parts, in characters. With them
// the fixed parts leave the body well under comment.MaxBody; comment.Fit
// remains the last guard.
const (
	contextLimit  = 40_000
	noteLimit     = 10_000
	labelLimit    = 80
	reasonLimit   = 300
	byLimit       = 80
	maxMentions   = 20
	checkpointDir = "checkpoints/"
)

// ReplySyntax is the comment that answers a checkpoint (architecture §4.6).
const ReplySyntax = "/optr choose N [note]"

// mentionRE matches @user and @org/team, as the config allows them.
var mentionRE = lazyregexp.New(`^@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9][A-Za-z0-9_.-]*)?$`)

// Comment renders the checkpoint comment (architecture §4.6): the hidden marker
// <!-- optr:checkpoint=<id> --> on the first line, the trigger, the
// mention handles (escalation.mention; anything that is not a handle is
// left out), the context fenced, the numbered options with (recommended),
// why that one is recommended, and the exact reply syntax /optr choose N
// [note] and /optr abort. It is at most comment.MaxBody characters; a long
// context is cut with a pointer to the checkpoint file.
func Comment(cp Checkpoint, mention []string) string {
	var b strings.Builder
	b.WriteString(comment.Marker(comment.KindCheckpoint, cp.ID) + "\n")
	b.WriteString("### ⏸️ optr is waiting for a decision: " + markdown.Code(string(cp.Trigger)) + "\n\n")
	if m := mentions(mention); m != "" {
		b.WriteString(m + " ")
	}
	b.WriteString(pausedLine(cp) + "\n\n")
	b.WriteString(details(cp))
	b.WriteString("\n" + recommendedLine(cp) + "\n\n")
	b.WriteString(howToAnswer(cp))
	return comment.Fit(b.String(), fileRef(cp.ID))
}

// DecidedComment renders the checkpoint comment once d answered cp: who
// chose which option and where, the note fenced, and the context and
// options folded away. For a pause decision the checkpoint stays open, so
// the body is Comment's with a line saying who chose to wait.
func DecidedComment(cp Checkpoint, d Decision) string {
	o, ok := cp.Option(d.Option)
	if !ok {
		o = Option{N: d.Option, Label: string(d.Action)}
	}
	chose := fmt.Sprintf("**%s** chose option %d, **%s**", who(d.By), o.N, markdown.Inline(o.Label, labelLimit))
	if o.Description != "" {
		chose += ": " + markdown.Inline(o.Description, reasonLimit)
	}
	chose += " (" + where(d.Source) + ")."

	var b strings.Builder
	b.WriteString(comment.Marker(comment.KindCheckpoint, cp.ID) + "\n")
	if !d.Action.Closes() {
		b.WriteString("### ⏸️ optr is waiting for a decision: " + markdown.Code(string(cp.Trigger)) + "\n\n")
		b.WriteString(chose + " The checkpoint stays open.\n\n")
		b.WriteString(note(d))
		b.WriteString(pausedLine(cp) + "\n\n")
		b.WriteString(details(cp))
		b.WriteString("\n" + recommendedLine(cp) + "\n\n")
		b.WriteString(howToAnswer(cp))
		return comment.Fit(b.String(), fileRef(cp.ID))
	}
	b.WriteString("### " + decidedHeading(d.Action) + ": " + markdown.Code(string(cp.Trigger)) + "\n\n")
	b.WriteString(chose + "\n\n")
	b.WriteString(note(d))
	b.WriteString("<details><summary>Context and options</summary>\n\n")
	b.WriteString(pausedLine(cp) + "\n\n")
	b.WriteString(details(cp))
	b.WriteString("\n</details>\n")
	return comment.Fit(b.String(), fileRef(cp.ID))
}

// AlreadyDecidedReply is the short reply to an answer that comes after d
// decided cp: the answer changes nothing.
func AlreadyDecidedReply(cp Checkpoint, d Decision) string {
	label := decidedLabel(cp, d)
	return fmt.Sprintf("Checkpoint %s was already decided: **%s** chose option %d, **%s** (%s). "+
		"A later answer changes nothing; to try again, start a new run with `/optr run`.",
		markdown.Code(cp.ID), who(d.By), d.Option, markdown.Inline(label, labelLimit), where(d.Source))
}

// AlreadyDecided says, in plain text for a terminal or a log, that d
// decided cp before: an answer now changes nothing. The caller adds its
// own next step.
func AlreadyDecided(cp Checkpoint, d Decision) string {
	by := strings.TrimSpace(d.By)
	if by == "" {
		by = "someone"
	}
	return fmt.Sprintf("checkpoint %s was already decided: %s chose option %d, %s (%s); a later answer changes nothing",
		cp.ID, by, d.Option, decidedLabel(cp, d), where(d.Source))
}

// decidedLabel is the label of the option d chose, or its action.
func decidedLabel(cp Checkpoint, d Decision) string {
	if o, ok := cp.Option(d.Option); ok {
		return o.Label
	}
	return string(d.Action)
}

// pausedLine names the run and says why it paused.
func pausedLine(cp Checkpoint) string {
	s := fmt.Sprintf("Run %s of workflow %s paused at checkpoint %s.", markdown.Code(cp.Run), markdown.Code(cp.Workflow), markdown.Code(cp.ID))
	if why := situation(cp.Trigger); why != "" {
		s += " " + why
	}
	return s
}

// details renders the context (fenced, cut when long) and the options.
func details(cp Checkpoint) string {
	var b strings.Builder
	if strings.TrimSpace(cp.Context) != "" {
		ctx, cutNote := cp.Context, ""
		if utf8.RuneCountInString(ctx) > contextLimit {
			ctx = markdown.Truncate(ctx, contextLimit)
			cutNote = "\n\n… cut; the whole context is in " + fileRef(cp.ID) + "."
		}
		b.WriteString("#### Context\n\n" + markdown.Untrusted(ctx) + cutNote + "\n\n")
	}
	b.WriteString("#### Options\n\n")
	for _, o := range cp.Options {
		fmt.Fprintf(&b, "%d. **%s**", o.N, markdown.Inline(o.Label, labelLimit))
		if o.N == cp.Recommended {
			b.WriteString(" (recommended)")
		}
		if o.Description != "" {
			b.WriteString(": " + markdown.Inline(o.Description, reasonLimit))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// recommendedLine says which option is recommended and why.
func recommendedLine(cp Checkpoint) string {
	o, _ := cp.Option(cp.Recommended)
	why := strings.TrimPrefix(cp.Recommendation, o.Label+" — ")
	return fmt.Sprintf("**Recommended:** option %d, %s: %s.", o.N, markdown.Inline(o.Label, labelLimit), markdown.Inline(why, reasonLimit))
}

// howToAnswer gives the exact reply syntax.
func howToAnswer(cp Checkpoint) string {
	var b strings.Builder
	b.WriteString("#### How to answer\n\nReply on this issue with a comment:\n\n")
	b.WriteString("```\n" + ReplySyntax + "\n```\n\n")
	fmt.Fprintf(&b, "For example `/optr choose %d` takes the recommended option; text after the number is kept as a note in the ledger.", cp.Recommended)
	if _, ok := cp.OptionFor(ActionAbort); ok {
		b.WriteString(" `/optr abort` ends the run.")
	}
	b.WriteString(" Only people with write access to this repository can answer, and the first answer decides.\n")
	return b.String()
}

// note renders a decision's note, fenced; empty when there is none.
func note(d Decision) string {
	if strings.TrimSpace(d.Note) == "" {
		return ""
	}
	n, cutNote := d.Note, ""
	if utf8.RuneCountInString(n) > noteLimit {
		n, cutNote = markdown.Truncate(n, noteLimit), "\n\n… cut; the whole note is in the ledger."
	}
	return "Note:\n\n" + markdown.Untrusted(n) + cutNote + "\n\n"
}

func decidedHeading(a Action) string {
	switch a {
	case ActionProceed:
		return "✅ Checkpoint decided, the run goes on"
	case ActionSkip:
		return "⏭️ Checkpoint decided, the run is skipped"
	case ActionAbort:
		return "⛔ Checkpoint decided, the run is aborted"
	}
	return "Checkpoint decided"
}

// who renders the person who decided.
func who(by string) string {
	if strings.TrimSpace(by) == "" {
		return "someone"
	}
	return markdown.Inline(by, byLimit)
}

// where says where a decision was made.
func where(source string) string {
	switch source {
	case SourceComment:
		return "in a comment"
	case SourceTerminal:
		return "at the terminal"
	case SourceCLI:
		return "with optr resume"
	}
	return "source unknown"
}

// mentions renders the valid handles among handles, at most maxMentions.
func mentions(handles []string) string {
	var ok []string
	for _, h := range handles {
		if mentionRE.MatchString(h) && len(ok) < maxMentions {
			ok = append(ok, h)
		}
	}
	return strings.Join(ok, " ")
}

// fileRef names the checkpoint file inside the datalake.
func fileRef(id string) string {
	return "the checkpoint file " + markdown.Code(checkpointDir+id+fileExt) + " in the datalake"
}
