package commitback

import (
	"errors"
	"fmt"

	"github.com/optr-dev/optr/internal/gitdata"
	"github.com/optr-dev/optr/internal/ledger"
)

// Request is one commit-back: a run's ledger entries, re-chained on the
// branch's current ledger, and its files, in one commit.
type Request struct {
	// Branch is the branch to commit to; empty means the repository's
	// default branch. A missing branch is created as an orphan holding only
	// the ledger and the files.
	Branch string
	// Message is the commit message; the Optr-Ledger trailers are added.
	Message string
	// LedgerPath is the ledger's repository-relative path, e.g.
	// ".optr/ledger.jsonl".
	LedgerPath string
	// Drafts are the run's ledger entries, in order, before they are
	// chained: each round places them after the branch's last entry
	// (ledger.Rechain), and entries the branch already holds (a retry of
	// this very run) are not written again. None: the ledger is left as
	// it is.
	Drafts []ledger.Draft
	// Files are other repository-relative paths to write, with their
	// content (e.g. the run's datalake files). Text goes into the tree
	// request inline; other bytes become blobs first.
	Files map[string][]byte
	// Paths are other repository-relative paths to write from local files
	// (repository path → local path), for files too large to hold in
	// memory: each is stored once per commit-back as a blob, streamed from
	// its file, and the tree names it by sha.
	Paths map[string]string
	// AuthorName and AuthorEmail set the commit's author; empty means the
	// token's identity (github-actions[bot] with GITHUB_TOKEN).
	AuthorName, AuthorEmail string
	// VerifyPublished makes the commit-back verify before it writes (architecture
	// §4.13): the branch's ledger must still hold the head this repository
	// last published in the Optr-Ledger trailers of its commits (the
	// latest commit on the branch that has them); if it does not, the
	// commit-back fails with a *RewrittenLedgerError and writes nothing.
	VerifyPublished bool
	// Known, when not nil, is the content the caller believes the branch's
	// ledger file (the active segment) has, e.g. what it read at the start
	// of the run. When the file's git blob sha at the tip is Known's, the
	// commit-back does not download it again: a few hundred bytes of
	// directory listing instead of up to 8 MiB.
	Known []byte
	// Published, when not zero, is a head published elsewhere (e.g. in the
	// last progress comment or ledger-checkpoint output) that the branch's
	// ledger must hold, checked like the trailers' head.
	Published ledger.Head
}

func (req Request) validate() error {
	switch {
	case req.Message == "":
		return errors.New("commit back: the commit message is empty")
	case !gitdata.ValidPath(req.LedgerPath):
		return fmt.Errorf("commit back: ledger path %q is not a clean repository-relative path", req.LedgerPath)
	case (req.AuthorName == "") != (req.AuthorEmail == ""):
		return errors.New("commit back: give both the author's name and email, or neither")
	}
	for p := range req.Paths {
		if _, dup := req.Files[p]; dup {
			return fmt.Errorf("commit back: %s is given both as content and as a local file", p)
		}
	}
	for p := range req.paths() {
		if !gitdata.ValidPath(p) {
			return fmt.Errorf("commit back: file path %q is not a clean repository-relative path", p)
		}
		if p == req.LedgerPath {
			return fmt.Errorf("commit back: %s is the ledger; it cannot also be one of the files", p)
		}
	}
	return nil
}

// paths yields the repository path of every file, given by content or by
// local path.
func (req Request) paths() map[string]bool {
	out := make(map[string]bool, len(req.Files)+len(req.Paths))
	for p := range req.Files {
		out[p] = true
	}
	for p := range req.Paths {
		out[p] = true
	}
	return out
}

func (req Request) author() gitdata.Author {
	return gitdata.Author{Name: req.AuthorName, Email: req.AuthorEmail}
}
