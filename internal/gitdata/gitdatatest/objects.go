package gitdatatest

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/gitdata"
)

// commit is a commit object.
type commit struct {
	tree, parent, message, author string
}

// objects are a repository's objects, content-addressed: blobs exactly as
// git names them, trees and commits by a hash of what they hold.
type objects struct {
	blobs   map[string][]byte
	trees   map[string]map[string]string // path → blob sha, every file
	commits map[string]commit
	// made counts the commits, so that two with the same content differ
	// as their dates would on GitHub.
	made int
}

func newObjects() objects {
	return objects{blobs: map[string][]byte{}, trees: map[string]map[string]string{"": {}}, commits: map[string]commit{}}
}

func hashOf(kind string, body string) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00%s", kind, len(body), body)
	return hex.EncodeToString(h.Sum(nil))
}

func (o *objects) putBlob(content []byte) string {
	sha := gitdata.BlobSHA(content)
	o.blobs[sha] = append([]byte(nil), content...)
	return sha
}

func (o *objects) putTree(files map[string]string) string {
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(&b, "%s\x00%s\n", p, files[p])
	}
	sha := hashOf("tree", b.String())
	o.trees[sha] = maps.Clone(files)
	return sha
}

func (o *objects) putCommit(c commit) string {
	o.made++
	sha := hashOf("commit", fmt.Sprintf("tree %s\nparent %s\nauthor %s\n%d\n\n%s", c.tree, c.parent, c.author, o.made, c.message))
	o.commits[sha] = c
	return sha
}

// isAncestor reports whether commit a is b or one of its ancestors.
func (o *objects) isAncestor(a, b string) bool {
	for sha := b; sha != ""; sha = o.commits[sha].parent {
		if sha == a {
			return true
		}
	}
	return false
}
