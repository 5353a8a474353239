package action

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/optr-dev/optr/internal/markdown"
)

// slashPrefix starts every comment command.
const slashPrefix = "/optr"

// usage lists the comment commands, for replies to malformed ones.
const usage = "Commands: `/optr run [pipeline] [request]` starts a run, `/optr choose N [note]` answers the open checkpoint with option N, `/optr abort` stops the waiting run."

// slash is a parsed /optr comment.
type slash struct {
	action Command // Run, Choose or Abort; Skip when malformed
	// request is the text after /optr run: on its line and below.
	request string
	choice  int
	note    string
	// reason (one line, for the log) and reply (Markdown, for the issue)
	// explain a malformed command.
	reason, reply string
}

// parseSlash reads a comment. ok is false when the comment is not a
// command at all: it does not start with "/optr" followed by a space or its
// end (leading whitespace is fine). Command words are case-sensitive.
//
//	/optr run [pipeline] [request…]   the request runs to the end of the comment
//	/optr choose N [note…]   N ≥ 1; the note runs to the end of the comment
//	/optr abort [note…]
//
// A malformed command comes back with action Skip, a reason and a reply.
func parseSlash(body string) (s slash, ok bool) {
	rest := strings.TrimLeftFunc(normalizeNewlines(body), unicode.IsSpace)
	if !strings.HasPrefix(rest, slashPrefix) {
		return slash{}, false
	}
	rest = rest[len(slashPrefix):]
	if rest != "" && !startsWithSpace(rest) {
		return slash{}, false // "/optrx" is someone else's command
	}
	line, more, _ := strings.Cut(rest, "\n")
	word, line := cutWord(line)
	switch word {
	case "run":
		// The first word is a pipeline only when it names a configured one,
		// which the config says (Trigger.TakePipeline): until then it is
		// the request's first word.
		return slash{action: Run, request: joinNote(line, more)}, true
	case "choose":
		num, line := cutWord(line)
		n, err := parseChoice(num)
		if err != nil {
			return malformed(fmt.Sprintf("/optr choose: %v", err),
				"`/optr choose` needs the number of an option, a positive whole number such as `/optr choose 1`; a note may follow it."), true
		}
		return slash{action: Choose, choice: n, note: joinNote(line, more)}, true
	case "abort":
		return slash{action: Abort, note: joinNote(line, more)}, true
	case "":
		return malformed("/optr without a command", "`/optr` needs a command. "+usage), true
	default:
		return malformed(fmt.Sprintf("unknown command /optr %s; the commands are run, choose and abort", markdown.OneLine(word, 40)),
			"I do not know that command. "+usage), true
	}
}

func malformed(reason, reply string) slash {
	return slash{action: Skip, reason: reason, reply: reply}
}

// maxChoiceDigits bounds N: no checkpoint has a billion options.
const maxChoiceDigits = 9

func parseChoice(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("missing option number")
	}
	if len(s) > maxChoiceDigits || strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return 0, fmt.Errorf("%q is not an option number", markdown.OneLine(s, 20))
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not an option number: options start at 1", s)
	}
	return n, nil
}

// cutWord returns the first whitespace-separated word of s and what
// follows it.
func cutWord(s string) (word, rest string) {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

func joinNote(line, more string) string {
	note := strings.TrimSpace(line)
	if more = strings.TrimSpace(more); more != "" {
		if note != "" {
			note += "\n"
		}
		note += more
	}
	return note
}

func startsWithSpace(s string) bool {
	for _, r := range s {
		return unicode.IsSpace(r)
	}
	return false
}
