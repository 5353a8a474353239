package docs

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// architectureDoc is the repository's architecture document, which code
// comments cite as `architecture §x.y`.
const architectureDoc = "docs/architecture.md"

// sectionHeading is a heading that numbers its section: "## §4.14 Agent
// isolation".
var sectionHeading = regexp.MustCompile(`^#{1,6}[ \t]+§(\d+(?:\.\d+)*)(?:[ \t]|$)`)

// sectionRef is a reference to a numbered section, of any document.
var sectionRef = regexp.MustCompile(`§(\d+(?:\.\d+)*)`)

// documentName is a name that can own a § reference: this repository's
// architecture document (architecture, docs/architecture.md), the brief
// it was built from (DESIGN), and the outside specifications the code
// cites by section (RFC 9110 §7.6.1, YAML 1.2 §5.1). A reference belongs
// to the last one named before it within refWindow; a reference with none
// is the architecture document's (the repository's convention).
var documentName = regexp.MustCompile(`\barchitecture(?:\.md)?\b|\bDESIGN(?:\.md)?\b|\bRFC[ \t]?\d+\b|\bYAML[ \t]?\d+(?:\.\d+)*\b`)

// thisFile is this test's own file, whose fixtures cite sections the
// document lacks on purpose.
const thisFile = "internal/testkit/docs/architecture_test.go"

// refWindow is how far back from a § reference its document's name is
// looked for: far enough for a list ("architecture §4.2, §4.3, §4.10")
// and a comment wrapped between name and number, not so far that a name
// a paragraph earlier claims a reference.
const refWindow = 100

// numbered is a numbered heading of the architecture document.
type numbered struct {
	num  string
	line int
}

// citation is a § reference found in a file.
type citation struct {
	num  string
	line int
	// doc is "architecture", "DESIGN" or the outside specification.
	doc string
}

// sections returns the numbered headings of an architecture document
// outside code blocks, in order.
func sections(md string) []numbered {
	var out []numbered
	inFence := false
	for i, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if m := sectionHeading.FindStringSubmatch(line); m != nil && !inFence {
			out = append(out, numbered{num: m[1], line: i + 1})
		}
	}
	return out
}

// citations returns every § reference of text with the document it
// belongs to.
func citations(text string) []citation {
	var out []citation
	for _, m := range sectionRef.FindAllStringSubmatchIndex(text, -1) {
		start := max(0, m[0]-refWindow)
		doc := "architecture"
		if names := documentName.FindAllString(text[start:m[0]], -1); len(names) > 0 {
			doc = strings.TrimSuffix(names[len(names)-1], ".md")
		}
		out = append(out, citation{num: text[m[2]:m[3]], line: 1 + strings.Count(text[:m[0]], "\n"), doc: doc})
	}
	return out
}

// sectionLess orders section numbers part by part: §4.9 before §4.10.
func sectionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := range min(len(pa), len(pb)) {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x < y
		}
	}
	return len(pa) < len(pb)
}

// checkArchitecture returns what is wrong with doc, the architecture
// document, and with the citations of it in files (name → content): a
// section numbered twice or out of order, a subsection whose section the
// document lacks, a citation of a section it does not have, and a
// citation of a section of the brief (DESIGN.md), which the repository
// does not have.
func checkArchitecture(doc string, files map[string]string) []string {
	var problems []string
	secs := sections(doc)
	have := map[string]int{}
	for i, s := range secs {
		if first, dup := have[s.num]; dup {
			problems = append(problems, fmt.Sprintf("%s:%d: §%s is numbered twice (first at line %d)", architectureDoc, s.line, s.num, first))
			continue
		}
		have[s.num] = s.line
		if i > 0 && !sectionLess(secs[i-1].num, s.num) {
			problems = append(problems, fmt.Sprintf("%s:%d: §%s comes after §%s: sections are numbered in order", architectureDoc, s.line, s.num, secs[i-1].num))
		}
		if parent, _, ok := cutLast(s.num, "."); ok && have[parent] == 0 {
			problems = append(problems, fmt.Sprintf("%s:%d: §%s has no §%s before it", architectureDoc, s.line, s.num, parent))
		}
	}
	names := slicesSorted(files)
	for _, name := range names {
		for _, c := range citations(files[name]) {
			switch {
			case c.doc == "DESIGN":
				problems = append(problems, fmt.Sprintf("%s:%d: cites §%s of DESIGN.md, the brief the repository was built from and does not have: cite architecture §x.y (%s)", name, c.line, c.num, architectureDoc))
			case c.doc == "architecture" && have[c.num] == 0:
				problems = append(problems, fmt.Sprintf("%s:%d: cites architecture §%s, a section %s does not have", name, c.line, c.num, architectureDoc))
			}
		}
	}
	return problems
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

func slicesSorted(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// citingFile reports whether a repository file is one whose text may cite
// the architecture: Go, Markdown, YAML and shell (by extension, or a
// script's #! line).
func citingFile(name string, head []byte) bool {
	switch filepath.Ext(name) {
	case ".go", ".md", ".yml", ".yaml", ".sh":
		return true
	}
	return bytes.HasPrefix(head, []byte("#!"))
}

// repositoryFiles lists the repository's files, relative to root and
// slash-separated: what git tracks or would track (untracked files that
// are not ignored included, so a new file counts before it is added),
// else, without git, every file below root outside .git and the
// directories .gitignore names.
func repositoryFiles(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
		cmd.Dir = root
		if out, err := cmd.Output(); err == nil {
			var files []string
			for f := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
				if f != "" {
					files = append(files, f)
				}
			}
			return files
		}
	}
	skip := map[string]bool{".git": true, ".optr": true, "node_modules": true, "dist": true, "bin": true}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skip[d.Name()] {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("list the repository's files: %v", err)
	}
	return files
}

// TestArchitectureCitations: every `architecture §x.y` in the repository's
// Go, Markdown, YAML and shell files — and every bare §x.y, which the
// repository's convention makes the architecture's — names a section
// docs/architecture.md has; the document numbers each section once, in
// order; nothing cites a section of the brief (DESIGN.md) it was built from.
func TestArchitectureCitations(t *testing.T) {
	t.Parallel()
	doc := readRoot(t, architectureDoc)
	if n := len(sections(doc)); n < 20 {
		t.Fatalf("%s has %d numbered sections; the heading parser is broken or the document lost its numbers", architectureDoc, n)
	}
	files := map[string]string{}
	cited := 0
	for _, name := range repositoryFiles(t) {
		if name == thisFile { // its fixtures cite missing sections on purpose
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			if os.IsNotExist(err) { // deleted in the working tree, not yet in the index
				continue
			}
			t.Fatal(err)
		}
		if !citingFile(name, data[:min(len(data), 2)]) || !bytes.Contains(data, []byte("§")) {
			continue
		}
		files[name] = string(data)
		for _, c := range citations(files[name]) {
			if c.doc == "architecture" && name != architectureDoc {
				cited++
			}
		}
	}
	if cited < 100 {
		t.Fatalf("found %d citations of the architecture outside it; the code has about 180: the file list or the citation parser is broken", cited)
	}
	for _, p := range checkArchitecture(doc, files) {
		t.Error(p)
	}
}

// TestCheckArchitecture holds the checker to what it must find: a test
// that cannot fail would keep nothing honest.
func TestCheckArchitecture(t *testing.T) {
	t.Parallel()
	doc := "# Architecture\n## §1 One\n## §2 Two\n### Unnumbered\n## §4 Contracts\n### §4.2 Action\n### §4.10 Stages\n```text\n## §9 in a code block\n```\n"
	tests := []struct {
		name  string
		doc   string
		files map[string]string
		want  []string // a substring of each problem, in order
	}{
		{name: "every citation resolves", doc: doc, files: map[string]string{
			"a.go": "// (architecture §4.2)\n// architecture §1, §2 and §4.10\n",
			"b.go": "// wrapped: see (architecture\n// §4.10), and\n",
			"c.go": "// the RFC 9110 §7.6.1 hop headers; YAML 1.2\n\t// §5.2 says so; RFC 6962's proof (§2.1.2) too\n",
			"d.sh": "# docs/architecture.md §4.2 and §4.10\n",
		}},
		{name: "a section the document lacks", doc: doc, files: map[string]string{
			"a.go":  "// architecture §4.3 says so\n",
			"b.yml": "# two lines\n# (architecture §4.2, §4.11)\n",
		}, want: []string{"a.go:1: cites architecture §4.3", "b.yml:2: cites architecture §4.11"}},
		{name: "a bare reference is the architecture's", doc: doc, files: map[string]string{
			"a.go": "// Run takes the steps of §4.9 in order\n",
		}, want: []string{"a.go:1: cites architecture §4.9"}},
		{name: "a section of a code block is no section", doc: doc, files: map[string]string{
			"a.md": "architecture §9\n",
		}, want: []string{"a.md:1: cites architecture §9"}},
		{name: "the brief is cited", doc: doc, files: map[string]string{
			"a.go": "// DESIGN.md §4.2 says\n",
		}, want: []string{"a.go:1: cites §4.2 of DESIGN.md"}},
		{name: "a section numbered twice", doc: doc + "### §4.10 Again\n", files: nil,
			want: []string{"§4.10 is numbered twice (first at line 7)"}},
		{name: "sections out of order", doc: "## §1 One\n## §3 Three\n## §2 Two\n", files: nil,
			want: []string{"§2 comes after §3"}},
		{name: "a subsection without its section", doc: "## §1 One\n### §2.1 Orphan\n", files: nil,
			want: []string{"§2.1 has no §2 before it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := checkArchitecture(tt.doc, tt.files)
			if len(got) != len(tt.want) {
				t.Fatalf("problems:\n%s\nwant %d, each holding: %q", strings.Join(got, "\n"), len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d is %q, want it to hold %q", i, got[i], w)
				}
			}
		})
	}
}
