package docs

import (
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// link is a Markdown inline link's target: [text](target).
var link = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)

// links returns the link targets of a Markdown text outside code blocks and
// code spans, each with its 1-based line.
func links(md string) []struct {
	target string
	line   int
} {
	var out []struct {
		target string
		line   int
	}
	inFence := false
	for i, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range link.FindAllStringSubmatch(line, -1) {
			out = append(out, struct {
				target string
				line   int
			}{m[1], i + 1})
		}
	}
	return out
}

// anchors are the fragment names GitHub gives a Markdown file's headings:
// lower case, spaces as '-', every character but letters, digits, '-' and
// '_' dropped; a repeated name gets -1, -2, ….
func anchors(md string) map[string]bool {
	out := map[string]bool{}
	inFence := false
	for line := range strings.Lines(md) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			}
		}
		name := b.String()
		for n := 1; out[name]; n++ {
			name = fmt.Sprintf("%s-%d", b.String(), n)
		}
		out[name] = true
	}
	return out
}

// TestDocsLinks: every relative link in README.md and docs/*.md names a
// file of the repository, and a #fragment a heading of its Markdown file.
func TestDocsLinks(t *testing.T) {
	t.Parallel()
	count := 0
	for _, file := range docFiles(t) {
		for _, l := range links(readRoot(t, file)) {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			count++
			where := fmt.Sprintf("%s:%d", file, l.line)
			target, frag, _ := strings.Cut(l.target, "#")
			rel := file
			if target != "" {
				rel = path.Join(path.Dir(file), target)
				if _, err := os.Stat(path.Join(root, rel)); err != nil {
					t.Errorf("%s: links to %s, which does not exist (%s from the repository root)", where, l.target, rel)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(rel, ".md") && !anchors(readRoot(t, rel))[frag] {
				t.Errorf("%s: links to %s, but %s has no heading #%s", where, l.target, rel, frag)
			}
		}
	}
	if count == 0 {
		t.Fatal("found no relative link in the docs: the link parser is broken")
	}
}

func TestAnchors(t *testing.T) {
	t.Parallel()
	md := "# optr\n## Quick start in GitHub Actions\n```\n# not a heading\n```\n## Config (`.github/optr.yml`)\n## Notes\n## Notes\n"
	got := anchors(md)
	for _, want := range []string{"optr", "quick-start-in-github-actions", "config-githuboptryml", "notes", "notes-1"} {
		if !got[want] {
			t.Errorf("anchors lack %q: %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a # line inside a code block counted as a heading")
	}
}
