package worktree

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Own is a file or folder of optr's own in the repository: its datalake,
// its ledger, its config file. No change may touch one, whatever
// changes.protect says: setting protect replaces the default globs, and
// the datalake need not be at .optr, but a change that edits the record of
// runs, or the rules the next run runs under, is never delivered.
type Own struct {
	// Path is slash-separated and relative to the repository's top level.
	Path string `json:"path"`
	// What names it in the reason a change is refused: "optr's ledger",
	// "optr's datalake".
	What string `json:"what"`
}

// OwnIn returns those of files, named by absolute paths (symbolic links
// allowed, the file itself need not exist yet), that lie in the
// repository whose top level is top, relative to it. A file outside it
// no change can touch; the top level itself is never one of them.
func OwnIn(top string, files []Own) []Own {
	root := resolved(top)
	var in []Own
	for _, f := range files {
		if f.Path == "" {
			continue
		}
		rel, err := filepath.Rel(root, resolved(f.Path))
		if err != nil || rel == "." || !filepath.IsLocal(rel) {
			continue
		}
		in = append(in, Own{Path: filepath.ToSlash(rel), What: f.What})
	}
	return in
}

// touchesOwn says how path (relative to the top level) touches the first
// of own it touches: it is that file or folder, lies in it, or is a file
// (git tracks no folders) where a folder that holds it must be; "" when
// it touches none. Case is ignored: on a file system that ignores it (as
// macOS's and Windows' do by default) OPS/Lake is ops/lake, and refusing
// such a path on one that does not costs nothing.
func touchesOwn(own []Own, path string) string {
	lower := strings.ToLower(path)
	for _, o := range own {
		switch p := strings.ToLower(o.Path); {
		case lower == p:
			return o.What
		case strings.HasPrefix(lower, p+"/"):
			return o.What + " " + o.Path
		}
	}
	for _, o := range own {
		if strings.HasPrefix(strings.ToLower(o.Path), lower+"/") {
			return "the folder of " + o.What + " " + o.Path
		}
	}
	return ""
}

// resolved is path made absolute with every symbolic link in its longest
// existing prefix resolved, as git names the top level: the rest, which
// does not exist yet, is joined on as it is.
func resolved(path string) string {
	p, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	var rest []string
	for {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(p)
		if parent == p || !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, os.ErrInvalid) {
			return filepath.Join(append([]string{p}, rest...)...)
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}
