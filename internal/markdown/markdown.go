// Package markdown shapes text for GitHub-flavoured Markdown: comments,
// the step summary, pull request bodies and the terminal's tables. It cuts
// text without splitting characters, fences blocks that their content
// cannot close, collapses long text, and renders untrusted text (agent
// output, issue text, error messages) inert.
package markdown

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Truncate cuts s to at most n characters without splitting a character.
func Truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// Shorten cuts s to at most n characters without splitting a character,
// its last "…" when anything was cut, so a reader sees that it was. It is
// how optr shortens any text it shows (messages, excerpts, labels);
// OneLine also folds it onto one line.
func Shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	return Truncate(s, n-1) + "…"
}

// Quote returns at most n characters of s as a Go-quoted string, every
// character that does not print (controls, bidi and other format
// characters, bytes that are not UTF-8) escaped, and "…" after it when
// anything was cut: how an error message quotes input it did not expect,
// such as the start of a binary file given as a config, in one short line.
func Quote(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(Truncate(s, n)) + "…"
}

// Fence wraps text in a Markdown code fence long enough that no run of
// backticks inside text can close it early.
func Fence(text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			if run > longest {
				longest = run
			}
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + "\n" + strings.TrimSuffix(text, "\n") + "\n" + f
}

// Collapse renders text as a fenced block inside <details> with summary,
// cut to limit characters (with a pointer to whereWhole when cut).
func Collapse(summary, text string, limit int, whereWhole string) string {
	cut := ""
	if utf8.RuneCountInString(text) > limit {
		text = Truncate(text, limit)
		cut = "\n\n… cut"
		if whereWhole != "" {
			cut += "; the whole text is in " + whereWhole
		}
	}
	return "<details><summary>" + summary + "</summary>\n\n" + Fence(text) + cut + "\n\n</details>"
}
