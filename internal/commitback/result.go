package commitback

import (
	"fmt"

	"github.com/optr-dev/optr/internal/ledger"
)

// Result is what a commit-back committed.
type Result struct {
	// CommitSHA is the commit that holds the ledger: the new commit, or the
	// tip when nothing changed.
	CommitSHA string
	// Branch is the branch committed to.
	Branch string
	// Ledger is exactly the content of the active ledger segment that was
	// committed (at LedgerPath).
	Ledger []byte
	// Entries are the request's drafts as the committed ledger holds
	// them: with their seq, prev and hash on the branch.
	Entries []ledger.Entry
	// Head is the committed ledger's head, as the commit's Optr-Ledger
	// trailers say: its size is Head.Seq.
	Head ledger.Head
	// Previous is the head of the branch's ledger before this commit (zero
	// when it had none): the size the ledger grew from, e.g. the old size
	// of a consistency proof for a witness (architecture §4.13).
	Previous ledger.Head
	// Sealed is set when this commit sealed the remote active segment
	// (architecture §4.3): it moved, unchanged, to Sealed.Path, and Ledger starts
	// the new active segment. The caller writes it into its workspace too.
	Sealed *SealedSegment
	// LastTree is the tree file of the newest sealed segment on the branch
	// (ledger.d/<first>-<last>.merkle), nil when the ledger has no sealed
	// segment or that file is missing: with Ledger, what Checkpoint needs.
	LastTree []byte
	// BranchCreated is true when the branch did not exist before.
	BranchCreated bool
	// Attempts counts read-rechain-update rounds; Conflicts counts those
	// lost to another writer moving the branch.
	Attempts, Conflicts int
	// Requests is the number of requests this commit-back sent, retries
	// included.
	Requests int
}

// SealedSegment is a ledger segment a commit-back sealed.
type SealedSegment struct {
	// Path is its repository-relative path, ledger.d/<first>-<last>.jsonl
	// beside the ledger.
	Path string
	// Content is its content: the active segment as it was.
	Content []byte
}

// Moved reports whether the commit-back added entries to the branch's
// ledger: after one that did, the new checkpoint is what witnesses are
// asked to cosign (architecture §4.13), from Previous.Seq.
func (r Result) Moved() bool { return r.Head != r.Previous }

// Checkpoint is the C2SP checkpoint of the ledger this commit-back
// committed (architecture §4.13) for origin (ledger.Origin), a signed note when
// key (OPTR_LEDGER_KEY, a signed-note private key) is not empty. It is made
// from the committed active segment and the newest sealed segment's tree
// file: what it costs follows the active segment, not the ledger's length,
// and the workspace, which holds only the active segment when the ledger
// lives on a branch of its own, is not read.
func (r Result) Checkpoint(origin, key string) ([]byte, error) {
	cp, err := ledger.TreeHeadOf(origin, r.LastTree, r.Ledger)
	if err != nil {
		return nil, fmt.Errorf("make the ledger checkpoint: %w", err)
	}
	if key == "" {
		return []byte(cp.Text()), nil
	}
	signed, err := cp.Sign(key)
	if err != nil {
		return nil, fmt.Errorf("sign the ledger checkpoint: %w", err)
	}
	return signed, nil
}
