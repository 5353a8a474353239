package datalake

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// FileWritten lists, one slash-separated path a line, the files of a run
// directory that optr wrote: every function of this package that writes a
// file under a run directory opened in this process (NewRun, OpenRun)
// notes it, and Files keeps it on disk, so a resumed run knows what the
// process before it wrote. It is never listed by Files, so never
// committed.
//
// The list is the second layer behind the sandbox: an agent that can
// reach the run directory (sandbox.mode off, a sandbox that failed) may
// leave files beside $OPTR_OUTPUT_DIR, and those are not optr's to
// record. Files records only listed files and agent-files/ (which
// SanitizeOutputs made safe) and refuses every other file by name.
const FileWritten = ".written"

// written is what optr wrote in one run directory.
type written struct {
	dir string // the run directory, absolute

	saving sync.Mutex // held while FileWritten is written
	mu     sync.Mutex
	names  map[string]bool // slash-separated, relative to dir
	dirty  bool            // names has entries FileWritten lacks
	// earlier are the files dir held when it was opened without a
	// FileWritten: a run resumed from a checkout of what an earlier job
	// recorded.
	earlier map[string]bool
}

// runsWritten holds the written of every run directory this process
// opened, by absolute path.
var runsWritten struct {
	sync.Mutex
	byDir map[string]*written
}

// track returns the written of the run directory dir, loading FileWritten
// the first time.
func track(dir string) *written {
	abs := absPath(dir)
	runsWritten.Lock()
	defer runsWritten.Unlock()
	if w := runsWritten.byDir[abs]; w != nil {
		return w
	}
	if runsWritten.byDir == nil {
		runsWritten.byDir = map[string]*written{}
	}
	w := &written{dir: abs, names: map[string]bool{}}
	data, err := os.ReadFile(filepath.Join(abs, FileWritten))
	switch {
	case err == nil:
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if name := sc.Text(); name != "" {
				w.names[name] = true
			}
		}
	case errors.Is(err, fs.ErrNotExist):
		w.earlier = regularFiles(abs)
	}
	runsWritten.byDir[abs] = w
	return w
}

// regularFiles lists the regular files under dir, slash-separated and
// relative to it; what cannot be read is left out.
func regularFiles(dir string) map[string]bool {
	files := map[string]bool{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			files[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	return files
}

// noteWritten records that this package wrote path, when path lies under
// a run directory this process opened.
func noteWritten(path string) {
	if w, rel := writtenFor(path); w != nil && rel != FileWritten {
		w.mu.Lock()
		if !w.names[rel] {
			w.names[rel], w.dirty = true, true
		}
		w.mu.Unlock()
	}
}

// writtenFor returns the written of the run directory this process
// opened that holds path, and path relative to it (slash-separated); nil
// when none holds it.
func writtenFor(path string) (*written, string) {
	p := absPath(path)
	runsWritten.Lock()
	var w *written
	for d := filepath.Dir(p); w == nil; d = filepath.Dir(d) {
		w = runsWritten.byDir[d]
		if d == filepath.Dir(d) {
			break
		}
	}
	runsWritten.Unlock()
	if w == nil {
		return nil, ""
	}
	rel, err := filepath.Rel(w.dir, p)
	if err != nil {
		return nil, ""
	}
	return w, filepath.ToSlash(rel)
}

// Link gives the file src the new name dst (os.Link: an error wrapping
// fs.ErrExist when dst exists, so nothing is overwritten), for moving a
// file: the caller removes src next. dst counts as a file optr wrote
// (Run.Committable) when src did.
func Link(src, dst string) error {
	if err := os.Link(src, dst); err != nil {
		return err
	}
	if w, rel := writtenFor(src); w != nil && w.has(rel) {
		noteWritten(dst)
	}
	return nil
}

// has reports whether optr wrote the file rel (slash-separated).
func (w *written) has(rel string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.names[rel]
}

// save replaces FileWritten with the names when some are new.
func (w *written) save() error {
	w.saving.Lock()
	defer w.saving.Unlock()
	w.mu.Lock()
	if !w.dirty {
		w.mu.Unlock()
		return nil
	}
	names := slices.Sorted(maps.Keys(w.names))
	w.dirty = false
	w.mu.Unlock()
	if err := Replace(filepath.Join(w.dir, FileWritten), []byte(strings.Join(names, "\n")+"\n")); err != nil {
		w.mu.Lock()
		w.dirty = true
		w.mu.Unlock()
		return fmt.Errorf("list the files optr wrote: %w", err)
	}
	return nil
}

// Committable lists the run's files that may be recorded, as absolute
// paths, sorted: the files optr wrote (FileWritten) and those agents left
// in $OPTR_OUTPUT_DIR, which SanitizeOutputs made safe. Every other file
// is left where it is and named in refused (relative to the run
// directory), with the reason: a file optr did not write (an agent wrote
// it beside $OPTR_OUTPUT_DIR), a symbolic link, a file with another name
// (a hard link: it could share a secret's bytes with a file outside the
// run), anything not a regular file. A file the run directory held when
// this process opened it without a FileWritten list (a paused run resumed
// from a checkout) is refused with Earlier set: it was recorded before.
// The run's files are about to be recorded, so it first frees the files
// Reserve made and no write took, and makes what WriteFile wrote durable
// (Sync).
func (r *Run) Committable() (files []string, refused []Refused, err error) {
	r.release()
	if err := r.Sync(); err != nil {
		return nil, nil, err
	}
	w := track(r.Dir)
	if err := w.save(); err != nil {
		return nil, nil, err
	}
	err = filepath.WalkDir(w.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(w.dir, p)
		rel = filepath.ToSlash(rel)
		refuse := func(why string) error {
			refused = append(refused, Refused{Path: rel, Reason: why})
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case p == w.dir:
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			return refuse("a symbolic link: it could expose a file outside the run")
		case d.IsDir():
			return nil
		case isTemp(d.Name()) || isSpool(filepath.Dir(p), d.Name()):
			return nil
		case rel == FileRunning || rel == FileWritten:
			return nil
		case !d.Type().IsRegular():
			return refuse("not a regular file (" + d.Type().String() + ")")
		case !w.has(rel) && !strings.HasPrefix(rel, DirAgentFiles+"/"):
			if w.earlier[rel] {
				refused = append(refused, Refused{Path: rel, Reason: "there before this process opened the run (recorded by the job that paused it); left as it is", Earlier: true})
				return nil
			}
			return refuse("optr did not write it (an agent may have written it beside $OPTR_OUTPUT_DIR)")
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if hardLinked(info) {
			return refuse("a hard link: it shares its content with a file outside the run")
		}
		files = append(files, p)
		return nil
	})
	return files, refused, err
}
