package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// root is the repository root, relative to this package.
var root = filepath.Join("..", "..", "..")

// fence is one fenced code block of a Markdown file.
type fence struct {
	// Lang is the info string's first word ("yaml", "sh", "").
	Lang string
	// Line is the 1-based line of the block's first content line.
	Line int
	// Text is the block's content, each line ending in "\n".
	Text string
}

// fences returns the fenced code blocks of a Markdown text, in order. A
// block opens with a line starting with ``` and closes with the next line
// that is ``` alone; an unclosed block is an error.
func fences(t *testing.T, name, md string) []fence {
	t.Helper()
	var (
		out  []fence
		cur  *fence
		text strings.Builder
	)
	for i, line := range strings.Split(md, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			lang, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "```")), " ")
			cur = &fence{Lang: lang, Line: i + 2}
			text.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.Text = text.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			text.WriteString(line + "\n")
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: a ``` block is never closed", name, cur.Line-1)
	}
	return out
}

// docFiles are the Markdown files the tests read, relative to the
// repository root: README.md, then docs/*.md in name order.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no docs/*.md found: the reference moved out of README.md lives there")
	}
	out := []string{"README.md"}
	for _, f := range files {
		out = append(out, filepath.ToSlash(filepath.Join("docs", filepath.Base(f))))
	}
	return out
}

// readRoot reads a file of the repository.
func readRoot(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFences(t *testing.T) {
	t.Parallel()
	md := "text\n```yaml\na: 1\n```\n\n```\nplain\n```\n"
	got := fences(t, "x.md", md)
	want := []fence{{Lang: "yaml", Line: 3, Text: "a: 1\n"}, {Lang: "", Line: 7, Text: "plain\n"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fences (-want +got):\n%s", diff)
	}
}
