package githubtest

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Git object kinds.
const (
	kindBlob   = "blob"
	kindTree   = "tree"
	kindCommit = "commit"
)

// Git file modes, as the REST API spells them.
const (
	modeFile    = "100644"
	modeExec    = "100755"
	modeSymlink = "120000"
	modeTree    = "040000"
	modeCommit  = "160000"
)

// object is one git object. The fake hashes objects exactly like git
// (sha1 of "<kind> <size>\x00<body>") so that identical content gives
// identical shas and tests can compare them with real git.
type object struct {
	kind   string
	blob   []byte
	tree   []treeEntry
	commit *commitObject
}

// treeEntry is one entry of a tree object.
type treeEntry struct {
	name, mode, kind, sha string
}

// person is a commit author or committer.
type person struct {
	name, email string
	date        time.Time
}

// commitObject is the content of a commit.
type commitObject struct {
	tree      string
	parents   []string
	author    person
	committer person
	message   string
}

// hashObject returns the git object id of body stored as kind.
func hashObject(kind string, body []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(body))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// encodeTree returns a tree's body in git's format, entries sorted the way
// git sorts them (a directory sorts as if its name ended in "/").
func encodeTree(entries []treeEntry) []byte {
	sorted := append([]treeEntry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sortName(sorted[i]) < sortName(sorted[j]) })
	var b []byte
	for _, e := range sorted {
		raw, _ := hex.DecodeString(e.sha)
		b = fmt.Appendf(b, "%s %s\x00", strings.TrimPrefix(e.mode, "0"), e.name)
		b = append(b, raw...)
	}
	return b
}

func sortName(e treeEntry) string {
	if e.kind == kindTree {
		return e.name + "/"
	}
	return e.name
}

// encodeCommit returns a commit's body in git's format.
func encodeCommit(c *commitObject) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", c.tree)
	for _, p := range c.parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\n", c.author.signature())
	fmt.Fprintf(&b, "committer %s\n", c.committer.signature())
	b.WriteString("\n")
	b.WriteString(c.message)
	return []byte(b.String())
}

func (p person) signature() string {
	return fmt.Sprintf("%s <%s> %d +0000", p.name, p.email, p.date.Unix())
}

// leaf is a non-tree entry of a flattened tree: a file, symlink or
// submodule at a full path.
type leaf struct {
	mode, kind, sha string
}

// store holds one repository's git objects.
type store struct {
	objects map[string]*object
}

func newStore() *store { return &store{objects: map[string]*object{}} }

// body is o's content as git hashes it, without the "kind size\0" header.
func (o *object) body() []byte {
	switch o.kind {
	case kindTree:
		return encodeTree(o.tree)
	case kindCommit:
		return encodeCommit(o.commit)
	}
	return o.blob
}

func (s *store) put(o *object) string {
	body := o.body()
	sha := hashObject(o.kind, body)
	s.objects[sha] = o
	return sha
}

func (s *store) putBlob(content []byte) string {
	return s.put(&object{kind: kindBlob, blob: append([]byte(nil), content...)})
}

func (s *store) get(sha, kind string) (*object, bool) {
	o, ok := s.objects[sha]
	if !ok || o.kind != kind {
		return nil, false
	}
	return o, true
}

// flatten returns every leaf below tree sha, keyed by its full path.
func (s *store) flatten(sha, prefix string, into map[string]leaf) error {
	o, ok := s.get(sha, kindTree)
	if !ok {
		return fmt.Errorf("tree %s does not exist", sha)
	}
	for _, e := range o.tree {
		p := prefix + e.name
		if e.kind == kindTree {
			if err := s.flatten(e.sha, p+"/", into); err != nil {
				return err
			}
			continue
		}
		into[p] = leaf{mode: e.mode, kind: e.kind, sha: e.sha}
	}
	return nil
}

// build writes the nested trees for a flat set of leaves and returns the
// root tree's sha.
func (s *store) build(leaves map[string]leaf) string {
	direct := []treeEntry{}
	sub := map[string]map[string]leaf{}
	for p, l := range leaves {
		dir, rest, nested := strings.Cut(p, "/")
		if !nested {
			direct = append(direct, treeEntry{name: p, mode: l.mode, kind: l.kind, sha: l.sha})
			continue
		}
		if sub[dir] == nil {
			sub[dir] = map[string]leaf{}
		}
		sub[dir][rest] = l
	}
	for dir, inner := range sub {
		direct = append(direct, treeEntry{name: dir, mode: modeTree, kind: kindTree, sha: s.build(inner)})
	}
	sort.Slice(direct, func(i, j int) bool { return sortName(direct[i]) < sortName(direct[j]) })
	return s.put(&object{kind: kindTree, tree: direct})
}

// setLeaf puts l at path p, replacing a file that stood where p needs a
// directory and a directory that stood where p is.
func setLeaf(leaves map[string]leaf, p string, l leaf) {
	removePath(leaves, p)
	for dir := p; ; {
		i := strings.LastIndex(dir, "/")
		if i < 0 {
			break
		}
		dir = dir[:i]
		delete(leaves, dir)
	}
	leaves[p] = l
}

// removePath deletes the file at p or everything below directory p.
func removePath(leaves map[string]leaf, p string) {
	delete(leaves, p)
	for q := range leaves {
		if strings.HasPrefix(q, p+"/") {
			delete(leaves, q)
		}
	}
}

// isAncestor reports whether commit a is b or reachable from b through
// parents.
func (s *store) isAncestor(a, b string) bool {
	seen := map[string]bool{}
	queue := []string{b}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == a {
			return true
		}
		if seen[c] {
			continue
		}
		seen[c] = true
		if o, ok := s.get(c, kindCommit); ok {
			queue = append(queue, o.commit.parents...)
		}
	}
	return false
}
