package detect

import (
	"strconv"
	"strings"
)

// patchFile is what a patch does to one file: its path after the change,
// whether it is made executable or binary, and the lines it adds with
// their numbers in the new file.
type patchFile struct {
	path       string
	executable bool
	binary     bool
	added      []addedLine
}

type addedLine struct {
	n    int
	text string
}

// parsePatch reads the files of a patch as git diff --binary writes it
// (optr captures every change so). It reads only what detection needs;
// anything else is skipped, so a patch it cannot follow yields fewer
// added lines, and the file names from its "diff --git" lines still count.
func parsePatch(patch string) []patchFile {
	var files []patchFile
	var cur *patchFile
	next := 0 // the new file's number of the next added or context line
	inHunk := false
	for line := range strings.Lines(patch) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "diff --git "):
			files = append(files, patchFile{path: gitPath(line)})
			cur, inHunk = &files[len(files)-1], false
		case cur == nil:
		case inHunk && strings.HasPrefix(line, "+"):
			cur.added = append(cur.added, addedLine{next, line[1:]})
			next++
		case inHunk && strings.HasPrefix(line, " "):
			next++
		case inHunk && (strings.HasPrefix(line, "-") || strings.HasPrefix(line, "\\")):
		case strings.HasPrefix(line, "@@ "):
			next, inHunk = hunkStart(line), true
		case strings.HasPrefix(line, "+++ "):
			if p, ok := strings.CutPrefix(line, "+++ b/"); ok {
				cur.path = unquote(p)
			}
		case strings.HasPrefix(line, "new file mode "), strings.HasPrefix(line, "new mode "):
			cur.executable = strings.HasSuffix(line, "755")
		case line == "GIT binary patch", strings.HasPrefix(line, "Binary files "):
			cur.binary, inHunk = true, false
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
