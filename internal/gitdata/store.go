package gitdata

import (
	"context"
	"io"
)

// Store is one repository's Git Data API: everything commit-back reads and
// writes. Its methods are safe for concurrent use. A ref is a commit sha or
// "heads/<branch>".
type Store interface {
	// Repository names the repository, "owner/name", for messages.
	Repository() string
	// DefaultBranch returns the repository's default branch.
	DefaultBranch(ctx context.Context) (string, error)

	// ReadTip returns the commit branch points at. A missing branch is
	// ErrNoBranch; a repository without commits is ErrEmptyRepository.
	ReadTip(ctx context.Context, branch string) (Commit, error)
	// ReadCommit returns the commit sha.
	ReadCommit(ctx context.Context, sha string) (Commit, error)
	// ReadFileAt returns the content of the file path at ref, nil when
	// there is none; a directory at path is an error.
	ReadFileAt(ctx context.Context, ref, path string) ([]byte, error)
	// ListDir lists the directory dir at ref, nil when there is none.
	ListDir(ctx context.Context, ref, dir string) ([]DirEntry, error)

	// CreateBlob stores size bytes read from open as a blob and returns its
	// sha. open may be called again to send the bytes again.
	CreateBlob(ctx context.Context, size int64, open func() (io.ReadCloser, error)) (string, error)
	// CreateTree returns a tree that is base (a tree sha; "" for none) with
	// entries written over it; every other file of base is kept.
	CreateTree(ctx context.Context, base string, entries []TreeEntry) (string, error)
	// CreateCommit creates a commit and returns its sha; it moves no branch.
	CreateCommit(ctx context.Context, c NewCommit) (string, error)
	// CreateRef creates branch at commit sha. A branch that exists already
	// is ErrMoved.
	CreateRef(ctx context.Context, branch, sha string) error
	// UpdateRef moves branch to commit sha if that is a fast-forward
	// (compare-and-swap: never forced). A branch that moved elsewhere, or
	// was deleted, is ErrMoved; a protection rule that refuses the update
	// is a *RuleError.
	UpdateRef(ctx context.Context, branch, sha string) error
	// CreateFile commits a new file on the default branch without the Git
	// Data API, which an empty repository refuses: GitHub's contents API,
	// the one write that gives a repository its first commit. A file that
	// exists already, or a branch that moved meanwhile, is ErrMoved.
	CreateFile(ctx context.Context, path, message string, content []byte, author Author) error
}

// Commit is a commit as read.
type Commit struct {
	// SHA is the commit's sha, Tree its tree's.
	SHA, Tree string
	// Message is its full message.
	Message string
	// Parent is its first parent, "" for a root commit.
	Parent string
}

// NewCommit is a commit to create.
type NewCommit struct {
	// Message is its message, Tree the sha of its tree.
	Message, Tree string
	// Parent is its one parent; "" makes a root commit.
	Parent string
	// Author is its author; zero means the token's identity.
	Author Author
}

// Author is a commit's author.
type Author struct {
	Name, Email string
}

// TreeEntry is one file to write into a tree: a regular file (mode 100644).
type TreeEntry struct {
	// Path is its repository-relative path.
	Path string
	// SHA names a blob the repository has; when empty, Content is the
	// file's text (valid UTF-8), stored as a new blob.
	SHA     string
	Content []byte
}

// DirEntry is one entry of a directory listing.
type DirEntry struct {
	// Name is the entry's name within the directory.
	Name string
	// SHA is its blob's sha (a tree's for a directory).
	SHA string
}
