package execpaths

import (
	"path"
	"slices"
	"strings"
)

// Set is a set of repository paths (slash-separated, relative to the
// repository's root): files, folders with everything under them, and the
// files of one kind directly in a folder; each with why it is in.
type Set struct {
	files map[string]string
	trees map[string]string
	flats map[flat]string
	// Unresolved lists, for messages, what made a folder join whole: a
	// sourced path computed at run time.
	Unresolved []string
}

// flat is the files directly in dir whose names end in ext.
type flat struct{ dir, ext string }

// NewSet returns an empty Set.
func NewSet() *Set {
	return &Set{files: map[string]string{}, trees: map[string]string{}, flats: map[flat]string{}}
}

// AddFile adds the file p, for why.
func (s *Set) AddFile(p, why string) {
	if p = clean(p); p != "" && p != "." {
		if _, ok := s.files[p]; !ok {
			s.files[p] = why
		}
	}
}

// AddTree adds the folder dir and everything under it, for why ("." is
// the whole repository).
func (s *Set) AddTree(dir, why string) {
	if dir = clean(dir); dir == "" {
		dir = "."
	}
	if _, ok := s.trees[dir]; !ok {
		s.trees[dir] = why
	}
}

// AddFlat adds the files directly in dir whose names end in ext, for
// why.
func (s *Set) AddFlat(dir, ext, why string) {
	if dir = clean(dir); dir == "" {
		dir = "."
	}
	k := flat{dir, ext}
	if _, ok := s.flats[k]; !ok {
		s.flats[k] = why
	}
}

// Match reports whether p is in the set, and why.
func (s *Set) Match(p string) (why string, ok bool) {
	p = clean(p)
	if why, ok := s.files[p]; ok {
		return why, true
	}
	if why, ok := s.trees["."]; ok {
		return why, true
	}
	for dir := path.Dir(p); ; dir = path.Dir(dir) {
		if why, ok := s.trees[dir]; ok && dir != "." {
			return why, true
		}
		if dir == "." || dir == "/" {
			break
		}
	}
	for k, why := range s.flats {
		if path.Dir(p) == k.dir && strings.HasSuffix(p, k.ext) {
			return why, true
		}
	}
	return "", false
}

// Files lists the single files in the set, sorted (for tests and
// messages).
func (s *Set) Files() []string {
	out := make([]string, 0, len(s.files))
	for p := range s.files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// clean makes p a clean slash-separated path relative to the root: ""
// for a path outside it (absolute, or climbing out).
func clean(p string) string {
	p = path.Clean(strings.TrimPrefix(p, "./"))
	if p == "." {
		return "."
	}
	if path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	return p
}
