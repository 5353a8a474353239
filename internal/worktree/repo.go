package worktree

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Owner is the user who owns an agent's tree and repository: the
// unprivileged user the sandbox runs agents as when optr runs as root.
type Owner struct{ UID, GID int }

// borrowed is what the repositories optr makes take from the workspace's:
// its objects (alternates: read, never written), the commit they start
// from and, read once at Start, the few files that describe that history
// (shallow, the commits a shallow clone stops at) and what the workspace
// ignores locally (info/exclude). Nothing of the workspace's
// configuration, hooks or refs.
type borrowed struct {
	base    string
	objects string // the workspace's objects directory, absolute
	sha256  bool   // the repository's objects are named by SHA-256
	shallow []byte
	exclude []byte
}

// borrow reads what the run's repositories take from the workspace whose
// common git directory is common.
func borrow(ctx context.Context, g gitCmd, top, common, base string) (*borrowed, error) {
	b := &borrowed{base: base, objects: filepath.Join(common, "objects"), sha256: len(base) == 64}
	if fi, err := os.Stat(b.objects); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("worktrees: the workspace %s has no objects directory at %s (%v)", top, b.objects, err)
	}
	for _, f := range []struct {
		path string
		into *[]byte
	}{{"shallow", &b.shallow}, {"info/exclude", &b.exclude}} {
		data, err := os.ReadFile(filepath.Join(common, filepath.FromSlash(f.path)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("worktrees: %w", err)
		}
		*f.into = data
	}
	return b, nil
}

// ReadOnly returns the directories an agent's repository reads but must
// not write: the workspace's objects and the object directories they in
// turn borrow (its alternates). The sandbox lets agents and checks read
// them.
func (r *Run) ReadOnly() []string {
	dirs := []string{r.from.objects}
	f, err := os.Open(filepath.Join(r.from.objects, "info", "alternates"))
	if err != nil {
		return dirs
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, `"`) {
			continue
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(r.from.objects, line)
		}
		dirs = append(dirs, filepath.Clean(line))
	}
	return dirs
}

// repoFile is a file of a repository optr makes.
type repoFile struct {
	path string // slash-separated, below the git directory
	data []byte
}

// files are the files of a repository that borrows b's objects, detached
// at b.base: the run's own repository (bare) or an agent's (with a work
// tree). Its configuration is optr's: no remote, no credential, no hook,
// nothing the workspace's configuration says.
func (b *borrowed) files(bare bool) []repoFile {
	var cfg bytes.Buffer
	version := 0
	if b.sha256 {
		version = 1
	}
	fmt.Fprintf(&cfg, "[core]\n\trepositoryformatversion = %d\n\tfilemode = true\n\tbare = %t\n", version, bare)
	if !bare {
		cfg.WriteString("\tlogallrefupdates = true\n")
	}
	if b.sha256 {
		cfg.WriteString("[extensions]\n\tobjectformat = sha256\n")
	}
	files := []repoFile{
		{"HEAD", []byte(b.base + "\n")},
		{"config", cfg.Bytes()},
		{"objects/info/alternates", []byte(b.objects + "\n")},
	}
	if b.shallow != nil {
		files = append(files, repoFile{"shallow", b.shallow})
	}
	if b.exclude != nil {
		files = append(files, repoFile{"info/exclude", b.exclude})
	}
	return files
}

// repoDirs are the directories of a repository, parents first.
var repoDirs = []string{"objects", "objects/info", "objects/pack", "refs", "refs/heads", "refs/tags", "info"}

// makeRepo makes the git directory gitDir (which must not exist) of a
// repository that borrows b's objects, owned by owner when it is set.
func (b *borrowed) makeRepo(gitDir string, bare bool, owner *Owner) error {
	paths := []string{gitDir}
	if err := os.Mkdir(gitDir, 0o777); err != nil {
		return err
	}
	for _, d := range repoDirs {
		p := filepath.Join(gitDir, filepath.FromSlash(d))
		if err := os.Mkdir(p, 0o777); err != nil {
			return err
		}
		paths = append(paths, p)
	}
	for _, f := range b.files(bare) {
		p := filepath.Join(gitDir, filepath.FromSlash(f.path))
		if err := os.WriteFile(p, f.data, 0o666); err != nil {
			return err
		}
		paths = append(paths, p)
	}
	return chown(owner, paths...)
}

// chown gives paths to owner; a nil owner leaves them as they are.
func chown(owner *Owner, paths ...string) error {
	if owner == nil {
		return nil
	}
	for _, p := range paths {
		if err := os.Lchown(p, owner.UID, owner.GID); err != nil {
			return err
		}
	}
	return nil
}
