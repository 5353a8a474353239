package gitdatatest

import (
	"context"
	"fmt"
	"io"
	"maps"
	"path"
	"strings"

	"github.com/optr-dev/optr/internal/gitdata"
)

// Repo implements gitdata.Store.
var _ gitdata.Store = (*Repo)(nil)

// Repository implements gitdata.Store.
func (r *Repo) Repository() string { return Name }

// DefaultBranch implements gitdata.Store.
func (r *Repo) DefaultBranch(ctx context.Context) (_ string, err error) {
	if err := r.begin(ctx, "DefaultBranch"); err != nil {
		return "", err
	}
	defer func() { r.end("DefaultBranch", "", 0, err) }()
	gitdata.CountRequest(ctx)
	return r.defaultBranch, nil
}

// ReadTip implements gitdata.Store.
func (r *Repo) ReadTip(ctx context.Context, branch string) (_ gitdata.Commit, err error) {
	if err := r.begin(ctx, "ReadTip"); err != nil {
		return gitdata.Commit{}, err
	}
	defer func() { r.end("ReadTip", branch, 0, err) }()
	gitdata.CountRequest(ctx)
	if len(r.refs) == 0 {
		return gitdata.Commit{}, gitdata.ErrEmptyRepository
	}
	sha, ok := r.refs[branch]
	if !ok {
		return gitdata.Commit{}, fmt.Errorf("read branch %s: %w", branch, gitdata.ErrNoBranch)
	}
	return r.commitOf(sha), nil
}

// ReadCommit implements gitdata.Store.
func (r *Repo) ReadCommit(ctx context.Context, sha string) (_ gitdata.Commit, err error) {
	if err := r.begin(ctx, "ReadCommit"); err != nil {
		return gitdata.Commit{}, err
	}
	defer func() { r.end("ReadCommit", "", 0, err) }()
	gitdata.CountRequest(ctx)
	if _, ok := r.objs.commits[sha]; !ok {
		return gitdata.Commit{}, fmt.Errorf("read commit %.7s: no such commit", sha)
	}
	return r.commitOf(sha), nil
}

func (r *Repo) commitOf(sha string) gitdata.Commit {
	c := r.objs.commits[sha]
	return gitdata.Commit{SHA: sha, Tree: c.tree, Message: c.message, Parent: c.parent}
}

// ReadFileAt implements gitdata.Store.
func (r *Repo) ReadFileAt(ctx context.Context, ref, p string) (_ []byte, err error) {
	if err := r.begin(ctx, "ReadFileAt"); err != nil {
		return nil, err
	}
	defer func() { r.end("ReadFileAt", p, 0, err) }()
	gitdata.CountRequest(ctx)
	files, ok := r.filesAt(ref)
	if !ok {
		return nil, nil
	}
	if sha, ok := files[p]; ok {
		return append([]byte(nil), r.objs.blobs[sha]...), nil
	}
	for f := range files {
		if strings.HasPrefix(f, p+"/") {
			return nil, fmt.Errorf("read %s: it is a directory in the repository, not a file", p)
		}
	}
	return nil, nil
}

// ListDir implements gitdata.Store.
func (r *Repo) ListDir(ctx context.Context, ref, dir string) (_ []gitdata.DirEntry, err error) {
	if err := r.begin(ctx, "ListDir"); err != nil {
		return nil, err
	}
	defer func() { r.end("ListDir", dir, 0, err) }()
	gitdata.CountRequest(ctx)
	files, _ := r.filesAt(ref)
	prefix := strings.TrimSuffix(dir, "/") + "/"
	if dir == "" || dir == "." {
		prefix = ""
	}
	subdirs := map[string]map[string]string{}
	var out []gitdata.DirEntry
	for f, sha := range files {
		rest, ok := strings.CutPrefix(f, prefix)
		if !ok {
			continue
		}
		name, below, nested := strings.Cut(rest, "/")
		if !nested {
			out = append(out, gitdata.DirEntry{Name: name, SHA: sha})
			continue
		}
		if subdirs[name] == nil {
			subdirs[name] = map[string]string{}
		}
		subdirs[name][below] = sha
	}
	for name, sub := range subdirs {
		out = append(out, gitdata.DirEntry{Name: name, SHA: r.objs.putTree(sub)})
	}
	return out, nil
}

// filesAt is the files of the commit ref names.
func (r *Repo) filesAt(ref string) (map[string]string, bool) {
	sha, ok := r.resolve(ref)
	if !ok {
		return nil, false
	}
	return r.objs.trees[r.objs.commits[sha].tree], true
}

// CreateBlob implements gitdata.Store.
func (r *Repo) CreateBlob(ctx context.Context, size int64, open func() (io.ReadCloser, error)) (_ string, err error) {
	if err := r.begin(ctx, "CreateBlob"); err != nil {
		return "", err
	}
	defer func() { r.end("CreateBlob", "", size, err) }()
	gitdata.CountRequest(ctx)
	if len(r.refs) == 0 {
		return "", gitdata.ErrEmptyRepository
	}
	src, err := open()
	if err != nil {
		return "", err
	}
	defer src.Close()
	content, err := io.ReadAll(io.LimitReader(src, size+1))
	if err != nil {
		return "", err
	}
	if int64(len(content)) != size {
		return "", fmt.Errorf("store a blob: %d bytes, not %d", len(content), size)
	}
	return r.objs.putBlob(content), nil
}

// CreateTree implements gitdata.Store.
func (r *Repo) CreateTree(ctx context.Context, base string, entries []gitdata.TreeEntry) (_ string, err error) {
	if err := r.begin(ctx, "CreateTree"); err != nil {
		return "", err
	}
	var sent int64
	defer func() { r.end("CreateTree", "", sent, err) }()
	gitdata.CountRequest(ctx)
	if len(r.refs) == 0 {
		return "", fmt.Errorf("create the tree: %w", gitdata.ErrEmptyRepository)
	}
	files, ok := r.objs.trees[base]
	if !ok {
		return "", fmt.Errorf("create the tree: base_tree %s is not a tree", base)
	}
	files = maps.Clone(files)
	for _, e := range entries {
		if !gitdata.ValidPath(e.Path) {
			return "", fmt.Errorf("create the tree: bad path %q", e.Path)
		}
		for f := range files {
			if strings.HasPrefix(f, e.Path+"/") || strings.HasPrefix(e.Path, f+"/") {
				delete(files, f) // a file replaces a directory and the other way round
			}
		}
		if e.SHA != "" {
			if _, ok := r.objs.blobs[e.SHA]; !ok {
				return "", fmt.Errorf("create the tree: %s names blob %s, which does not exist", e.Path, e.SHA)
			}
			files[e.Path] = e.SHA
			continue
		}
		sent += int64(len(e.Content))
		files[e.Path] = r.objs.putBlob(e.Content)
	}
	return r.objs.putTree(files), nil
}

// CreateCommit implements gitdata.Store.
func (r *Repo) CreateCommit(ctx context.Context, nc gitdata.NewCommit) (_ string, err error) {
	if err := r.begin(ctx, "CreateCommit"); err != nil {
		return "", err
	}
	defer func() { r.end("CreateCommit", "", 0, err) }()
	gitdata.CountRequest(ctx)
	if len(r.refs) == 0 {
		return "", fmt.Errorf("create the commit: %w", gitdata.ErrEmptyRepository)
	}
	if _, ok := r.objs.trees[nc.Tree]; !ok {
		return "", fmt.Errorf("create the commit: tree %s does not exist", nc.Tree)
	}
	if _, ok := r.objs.commits[nc.Parent]; nc.Parent != "" && !ok {
		return "", fmt.Errorf("create the commit: parent %s does not exist", nc.Parent)
	}
	author := nc.Author.Name
	if author == "" {
		author = "github-actions[bot]"
	}
	return r.objs.putCommit(commit{tree: nc.Tree, parent: nc.Parent, message: nc.Message, author: author}), nil
}

// CreateRef implements gitdata.Store.
func (r *Repo) CreateRef(ctx context.Context, branch, sha string) (err error) {
	if err := r.begin(ctx, "CreateRef"); err != nil {
		return err
	}
	defer func() { r.end("CreateRef", branch, 0, err) }()
	gitdata.CountRequest(ctx)
	switch _, exists := r.refs[branch]; {
	case len(r.refs) == 0:
		return gitdata.ErrEmptyRepository
	case exists:
		return fmt.Errorf("create branch %s: %w: Reference already exists", branch, gitdata.ErrMoved)
	case r.objs.commits[sha] == (commit{}):
		return fmt.Errorf("create branch %s: commit %s does not exist", branch, sha)
	}
	r.refs[branch] = sha
	return nil
}

// UpdateRef implements gitdata.Store.
func (r *Repo) UpdateRef(ctx context.Context, branch, sha string) (err error) {
	if err := r.begin(ctx, "UpdateRef"); err != nil {
		return err
	}
	defer func() { r.end("UpdateRef", branch, 0, err) }()
	gitdata.CountRequest(ctx)
	old, exists := r.refs[branch]
	switch {
	case r.rules[branch] != "":
		return fmt.Errorf("move branch %s: %w", branch, &gitdata.RuleError{Rule: r.rules[branch]})
	case !exists:
		return fmt.Errorf("move branch %s: %w: Reference does not exist", branch, gitdata.ErrMoved)
	case r.objs.commits[sha] == (commit{}):
		return fmt.Errorf("move branch %s: commit %s does not exist", branch, sha)
	case !r.objs.isAncestor(old, sha):
		return fmt.Errorf("move branch %s: %w: Update is not a fast forward", branch, gitdata.ErrMoved)
	}
	r.refs[branch] = sha
	return nil
}

// CreateFile implements gitdata.Store.
func (r *Repo) CreateFile(ctx context.Context, p, message string, content []byte, author gitdata.Author) (err error) {
	if err := r.begin(ctx, "CreateFile"); err != nil {
		return err
	}
	defer func() { r.end("CreateFile", p, int64(len(content)), err) }()
	gitdata.CountRequest(ctx)
	if !gitdata.ValidPath(p) || path.Clean(p) != p {
		return fmt.Errorf("create %s: bad path", p)
	}
	parent := r.refs[r.defaultBranch]
	files := maps.Clone(r.objs.trees[r.objs.commits[parent].tree])
	if files == nil {
		files = map[string]string{}
	}
	if _, exists := files[p]; exists {
		return fmt.Errorf("create %s: %w: the file exists", p, gitdata.ErrMoved)
	}
	files[p] = r.objs.putBlob(content)
	name := author.Name
	if name == "" {
		name = "github-actions[bot]"
	}
	r.refs[r.defaultBranch] = r.objs.putCommit(commit{tree: r.objs.putTree(files), parent: parent, message: message, author: name})
	return nil
}
