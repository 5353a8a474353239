package patch

import (
	"strconv"
	"strings"
)

// Modes a file has in git.
const (
	ModeFile       = "100644"
	ModeExecutable = "100755"
	ModeSymlink    = "120000"
	ModeSubmodule  = "160000"
)

// File is what a change does to one file.
type File struct {
	// Path is the file's path after the change (before it, for a file
	// the change deletes).
	Path string
	// OldMode and NewMode are the file's git modes before and after the
	// change ("" where it does not exist: OldMode of a new file, NewMode
	// of a deleted one).
	OldMode, NewMode string
	// Binary reports a binary file, whose lines git does not show.
	Binary bool
	// Added are the lines the change adds, in order.
	Added []Line
	// Shown are the lines of the new file the patch shows, added and
	// context lines, in order: what surrounds an added line (the object a
	// JSON key is in). A line whose N is not one more than the one
	// before it starts a hunk.
	Shown []Line
}

// Line is a line of the new file: its number, its text without the line
// break, and whether the change adds it.
type Line struct {
	N     int
	Text  string
	Added bool
}

// New reports whether the change creates the file.
func (f File) New() bool { return f.OldMode == "" && f.NewMode != "" }

// Deleted reports whether the change deletes the file.
func (f File) Deleted() bool { return f.NewMode == "" && f.OldMode != "" }

// Parse reads the files of a patch. It reads what git diff writes and
// skips anything else, so a patch it cannot follow yields fewer added
// lines, never an error; each "diff --git" line still names a file.
func Parse(patch []byte) []File {
	var files []File
	var cur *File
	next := 0 // the new file's number of the next added or context line
	inHunk := false
	for line := range strings.Lines(string(patch)) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "diff --git "):
			files = append(files, File{Path: gitPath(line)})
			cur, inHunk = &files[len(files)-1], false
		case cur == nil:
		case inHunk && strings.HasPrefix(line, "+"):
			l := Line{next, line[1:], true}
			cur.Added, cur.Shown = append(cur.Added, l), append(cur.Shown, l)
			next++
		case inHunk && strings.HasPrefix(line, " "):
			cur.Shown = append(cur.Shown, Line{next, line[1:], false})
			next++
		case inHunk && (strings.HasPrefix(line, "-") || strings.HasPrefix(line, "\\")):
		case strings.HasPrefix(line, "@@ "):
			next, inHunk = hunkStart(line), true
		case strings.HasPrefix(line, "+++ "):
			if p, ok := strings.CutPrefix(line, "+++ b/"); ok {
				cur.Path = unquote(p)
			}
		case strings.HasPrefix(line, "new file mode "):
			cur.NewMode = strings.TrimPrefix(line, "new file mode ")
		case strings.HasPrefix(line, "deleted file mode "):
			cur.OldMode = strings.TrimPrefix(line, "deleted file mode ")
		case strings.HasPrefix(line, "old mode "):
			cur.OldMode = strings.TrimPrefix(line, "old mode ")
		case strings.HasPrefix(line, "new mode "):
			cur.NewMode = strings.TrimPrefix(line, "new mode ")
		case strings.HasPrefix(line, "index "):
			// "index a..b 100644": the mode of a file the change edits
			// in place (a new, deleted or re-moded file says it apart).
			if f := strings.Fields(line); len(f) == 3 && cur.OldMode == "" && cur.NewMode == "" {
				cur.OldMode, cur.NewMode = f[2], f[2]
			}
		case line == "GIT binary patch", strings.HasPrefix(line, "Binary files "):
			cur.Binary, inHunk = true, false
		}
	}
	return files
}

// gitPath is the b/ path of a "diff --git a/X b/X" line.
func gitPath(line string) string {
	rest := strings.TrimPrefix(line, "diff --git ")
	if i := strings.LastIndex(rest, " b/"); i >= 0 {
		return unquote(rest[i+3:])
	}
	if i := strings.LastIndex(rest, ` "b/`); i >= 0 {
		return unquote(rest[i+1:])
	}
	return unquote(rest)
}

// unquote undoes git's quoting of an unusual path ("a\tb").
func unquote(p string) string {
	if strings.HasPrefix(p, `"`) {
		if u, err := strconv.Unquote(p); err == nil {
			return strings.TrimPrefix(u, "b/")
		}
	}
	return p
}

// hunkStart is the new file's first line number in "@@ -a,b +c,d @@".
func hunkStart(line string) int {
	_, rest, _ := strings.Cut(line, " +")
	rest, _, _ = strings.Cut(rest, " ")
	rest, _, _ = strings.Cut(rest, ",")
	n, err := strconv.Atoi(rest)
	if err != nil {
		return 1
	}
	return n
}
