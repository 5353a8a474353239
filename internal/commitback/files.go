package commitback

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/gitdata"
	"github.com/optr-dev/optr/internal/ledger"
)

// blobs are the files a commit-back gave GitHub: the blob sha of each
// local file stored (by repository path), and the content shas of every
// blob stored or written inline into a tree that was created. A round after
// a lost one writes those by sha: only what changed (the ledger) is sent
// again.
type blobs struct {
	local map[string]string // repository path → blob sha of a Paths file
	have  map[string]bool   // blob shas the repository holds
}

func newBlobs() blobs { return blobs{local: map[string]string{}, have: map[string]bool{}} }

// stored notes that a tree holding entries was created: GitHub holds each
// of their blobs.
func (b blobs) stored(entries []gitdata.TreeEntry) {
	for _, e := range entries {
		if e.SHA == "" {
			b.have[gitdata.BlobSHA(e.Content)] = true
		}
	}
}

// entries lists the tree entries for the ledger and the files, in path
// order. Content GitHub has from an earlier round goes by its sha; new text
// inline; other bytes, which JSON would mangle, and files given by local
// path go through a blob created once per commit-back.
func (r *round) entries(ctx context.Context, out outcome) ([]gitdata.TreeEntry, error) {
	all := map[string][]byte{r.req.LedgerPath: out.ledger}
	if out.sealed != nil {
		all[out.sealed.Path] = nil // by sha, below
		if out.sealedTree != nil {
			all[ledger.Segment{Path: out.sealed.Path}.TreePath()] = out.sealedTree
		}
	}
	for p, b := range r.req.Files {
		all[p] = b
	}
	for p := range r.req.Paths {
		all[p] = nil // by sha, below
	}
	paths := make([]string, 0, len(all))
	for p := range all {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	list := make([]gitdata.TreeEntry, 0, len(paths))
	for _, p := range paths {
		e := gitdata.TreeEntry{Path: p}
		switch local, isLocal := r.req.Paths[p]; {
		case out.sealed != nil && p == out.sealed.Path:
			e.SHA = out.sealedSHA
		case isLocal:
			sha, err := r.storeFile(ctx, p, local)
			if err != nil {
				return nil, err
			}
			e.SHA = sha
		default:
			sha, err := r.storeContent(ctx, p, all[p])
			if err != nil {
				return nil, err
			}
			if e.SHA = sha; sha == "" {
				e.Content = all[p]
			}
		}
		list = append(list, e)
	}
	return list, nil
}

// storeContent returns the sha to name content by: "" for new text, which
// goes into the tree inline; a blob created now for other bytes.
func (r *round) storeContent(ctx context.Context, p string, content []byte) (string, error) {
	if sha := gitdata.BlobSHA(content); r.blobs.have[sha] {
		return sha, nil
	}
	if utf8.Valid(content) {
		return "", nil
	}
	sha, err := r.store.CreateBlob(ctx, int64(len(content)), func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(content)), nil
	})
	if err != nil {
		return "", fmt.Errorf("commit to %s: store %s: %w", r.branch, p, err)
	}
	r.blobs.have[sha] = true
	return sha, nil
}

// storeFile stores the local file as a blob, once per commit-back,
// streamed from the file.
func (r *round) storeFile(ctx context.Context, p, local string) (string, error) {
	if sha, ok := r.blobs.local[p]; ok {
		return sha, nil
	}
	st, err := os.Stat(local)
	if err != nil {
		return "", fmt.Errorf("commit to %s: store %s: %w", r.branch, p, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("commit to %s: store %s: %s is not a regular file", r.branch, p, local)
	}
	sha, err := r.store.CreateBlob(ctx, st.Size(), func() (io.ReadCloser, error) { return os.Open(local) })
	if err != nil {
		return "", fmt.Errorf("commit to %s: store %s from %s: %w", r.branch, p, local, err)
	}
	r.blobs.local[p] = sha
	return sha, nil
}
