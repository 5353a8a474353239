package witness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
)

// Report is what Check found in a history that fits.
type Report struct {
	// Commits is how many commits were walked; Trailers how many of them
	// carried Optr-Ledger trailers, each matching its ledger.
	Commits, Trailers int
	// Head is the ledger head of the last commit (HEAD).
	Head ledger.Head
	// Remembered is how many heads this clone had verified before, each
	// still in the ledger.
	Remembered int
	// NotRemembered, when set, says why HEAD's head could not be added to
	// the clone's memory (a read-only clone); the check itself held.
	NotRemembered error
}

// Error names what does not fit the history, and why: a commit, the
// working tree, a head this clone verified before, or a comment in which
// optr published a head.
type Error struct {
	// Where is the commit's sha, "the working tree", "head N (hash)" or
	// "comment URL".
	Where string
	// Reason says what does not fit.
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("witness: %s: %s", e.Where, e.Reason)
}

const worktree = "the working tree"

// blob is one file of a ledger state: a git blob, or a file on disk.
type blob struct {
	name string // file name (a sealed segment's name, or the active's)
	sha  string // git blob sha; "" for a file only on disk
	path string // the file on disk, for the working tree
}

// state is a ledger as one commit (or the working tree) holds it.
type state struct {
	label  string
	segs   []blob
	active blob
	data   []byte // the active segment's content
	head   ledger.Head
}

// walker holds what a Check needs.
type walker struct {
	g          git
	cat        *catFile
	dirRel     string // the ledger's directory, relative to the repository
	activeName string // ledger.jsonl
	segName    string // ledger.d
}

// Check walks the first-parent history of HEAD in the git repository that
// holds the ledger at ledgerPath, oldest first, and checks that each
// commit's ledger extends the one before, that each commit's trailers
// match its ledger, and that the working tree's ledger extends HEAD's. It
// does not verify the chain itself: verify the working tree's ledger
// (ledger.VerifyFile) as well, which together prove every committed state
// a valid chain. The first commit or file that does not fit is an *Error.
func Check(ctx context.Context, ledgerPath string) (Report, error) {
	abs, err := filepath.Abs(ledgerPath)
	if err != nil {
		return Report{}, fmt.Errorf("witness: %w", err)
	}
	dir := filepath.Dir(abs)
	g := git{dir: dir}
	prefix, err := g.run(ctx, "rev-parse", "--show-prefix")
	if err != nil {
		return Report{}, fmt.Errorf("witness: the ledger %s is not in a git clone: %w", ledgerPath, err)
	}
	w := &walker{
		g:          g,
		dirRel:     strings.TrimSuffix(strings.TrimSpace(string(prefix)), "/"),
		activeName: filepath.Base(abs),
		segName:    filepath.Base(ledger.SegmentDir(abs)),
	}
	revs, err := g.run(ctx, "rev-list", "--first-parent", "--reverse", "HEAD")
	if err != nil {
		return Report{}, fmt.Errorf("witness: list the commits: %w", err)
	}
	if w.cat, err = g.catFile(ctx); err != nil {
		return Report{}, err
	}
	defer w.cat.close()

	var rep Report
	var prev *state
	commits := strings.Fields(string(revs))
	for _, c := range commits {
		cur, err := w.commitState(c)
		if err != nil {
			return rep, err
		}
		rep.Commits++
		if prev != nil {
			if err := w.extends(prev, cur); err != nil {
				return rep, err
			}
		}
		_, raw, err := w.cat.read(c)
		if err != nil {
			return rep, fmt.Errorf("witness: read commit %s: %w", c, err)
		}
		claimed, ok, err := ledger.ParseTrailers(commitMessage(raw))
		if err != nil {
			return rep, &Error{Where: c, Reason: err.Error()}
		}
		if ok {
			rep.Trailers++
			if err := matches(claimed, cur.head); err != nil {
				return rep, &Error{Where: c, Reason: err.Error()}
			}
		}
		prev = cur
	}
	if prev != nil {
		rep.Head = prev.head
		wt, err := w.worktreeState(ctx, abs, prev)
		if err != nil {
			return rep, err
		}
		if err := w.extends(prev, wt); err != nil {
			return rep, err
		}
	}
	mem, err := openMemory(ctx, g, path.Join(w.dirRel, w.activeName))
	if err != nil {
		return rep, err
	}
	if err := mem.check(ctx, g, abs); err != nil {
		return rep, err
	}
	rep.Remembered = len(mem.heads)
	if prev != nil {
		rep.NotRemembered = mem.remember(rep.Head, commits[len(commits)-1], time.Now())
	}
	return rep, nil
}

// matches compares a commit's trailers with the head of its ledger.
func matches(claimed, actual ledger.Head) error {
	switch {
	case claimed.Seq != actual.Seq:
		return fmt.Errorf("trailer %s: %d, but the commit's ledger has %d entries: a forged or stale trailer", ledger.TrailerSize, claimed.Seq, actual.Seq)
	case claimed.Hash != actual.Hash:
		return fmt.Errorf("trailer %s: %s, but entry %d of the commit's ledger has hash %s: a forged trailer, or the ledger was rewritten", ledger.TrailerHead, claimed.Hash, actual.Seq, actual.Hash)
	}
	return nil
}

// commitState reads the ledger as commit c holds it.
func (w *walker) commitState(c string) (*state, error) {
	st := &state{label: c}
	treeName := c + ":" + w.dirRel
	typ, raw, err := w.cat.read(treeName)
	if errors.Is(err, errMissing) {
		return st, nil // no datalake yet
	}
	if err != nil || typ != "tree" {
		return nil, fmt.Errorf("witness: read %s: %v (%s)", treeName, err, typ)
	}
	entries, err := parseTree(raw)
	if err != nil {
		return nil, &Error{Where: c, Reason: err.Error()}
	}
	for _, e := range entries {
		switch {
		case e.name == w.activeName && !e.tree:
			st.active = blob{name: e.name, sha: e.sha}
		case e.name == w.segName && e.tree:
			if st.segs, err = w.segments(c, e.sha); err != nil {
				return nil, err
			}
		}
	}
	if st.active.sha != "" {
		if _, st.data, err = w.cat.read(st.active.sha); err != nil {
			return nil, fmt.Errorf("witness: read the ledger of %s: %w", c, err)
		}
	}
	if st.head, err = w.headOf(st); err != nil {
		return nil, &Error{Where: c, Reason: err.Error()}
	}
	return st, nil
}

// segments lists the sealed segments in a ledger.d tree, in seq order,
// without their tree files (*.merkle).
func (w *walker) segments(c, treeSHA string) ([]blob, error) {
	_, raw, err := w.cat.read(treeSHA)
	if err != nil {
		return nil, fmt.Errorf("witness: read the segments of %s: %w", c, err)
	}
	entries, err := parseTree(raw)
	if err != nil {
		return nil, &Error{Where: c, Reason: err.Error()}
	}
	var out []blob
	for _, e := range entries {
		if !e.tree && ledger.IsTreeName(e.name) {
			continue // a segment's tree file: derived data, checked by verify
		}
		if _, _, err := ledger.ParseSegmentName(e.name); err != nil || e.tree {
			return nil, &Error{Where: c, Reason: fmt.Sprintf("%s/%s is not a sealed segment: %v", w.segName, e.name, err)}
		}
		out = append(out, blob{name: e.name, sha: e.sha})
	}
	// Git sorts tree entries by name, and zero-padded names sort by seq.
	return out, nil
}

// headOf is the head of a state's ledger: the active segment's tail, else
// the last sealed segment's.
func (w *walker) headOf(st *state) (ledger.Head, error) {
	if len(st.data) > 0 {
		h, err := ledger.HeadOf(st.data)
		if err != nil {
			return h, fmt.Errorf("%s: %w", w.activeName, err)
		}
		return h, nil
	}
	if len(st.segs) == 0 {
		return ledger.Head{}, nil
	}
	last := st.segs[len(st.segs)-1]
	r, err := w.open(last)
	if err != nil {
		return ledger.Head{}, err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return ledger.Head{}, err
	}
	h, err := ledger.HeadOf(data)
	if err != nil {
		return h, fmt.Errorf("%s/%s: %w", w.segName, last.name, err)
	}
	return h, nil
}

// open returns a blob's content.
func (w *walker) open(b blob) (io.Reader, error) {
	if b.sha == "" {
		return os.Open(b.path)
	}
	_, _, body, err := w.cat.object(b.sha)
	return body, err
}

// extends checks that cur's ledger starts with all of prev's: prev's
// sealed segments unchanged, and prev's active segment a prefix of what
// follows them in cur (the segments sealed since, then cur's active one).
func (w *walker) extends(prev, cur *state) error {
	fail := func(format string, args ...any) error {
		return &Error{Where: cur.label, Reason: fmt.Sprintf(format, args...) + fmt.Sprintf(" (compared with %s)", prev.label)}
	}
	for i, s := range prev.segs {
		if i >= len(cur.segs) {
			return fail("sealed segment %s/%s is gone: entries were removed", w.segName, s.name)
		}
		if c := cur.segs[i]; c.name != s.name || (c.sha != "" && c.sha != s.sha) {
			return fail("sealed segment %s/%s was changed or replaced (now %s/%s): the ledger was rewritten", w.segName, s.name, w.segName, c.name)
		}
	}
	if len(cur.segs) == len(prev.segs) && cur.active.sha != "" && cur.active.sha == prev.active.sha {
		return nil
	}
	want := prev.data // must be a prefix of the rest of cur
	off := 0
	firstSeq := int64(1)
	if n := len(prev.segs); n > 0 {
		_, last, _ := ledger.ParseSegmentName(prev.segs[n-1].name)
		firstSeq = last + 1
	}
	compare := func(r io.Reader) error {
		buf := make([]byte, 64<<10)
		for off < len(want) {
			n, err := r.Read(buf[:min(len(buf), len(want)-off)])
			if i := firstDiff(want[off:off+n], buf[:n]); i >= 0 {
				seq := firstSeq + int64(bytes.Count(want[:off+i], []byte{'\n'}))
				return fail("its ledger does not extend the previous one: entry %d differs: the ledger was rewritten", seq)
			}
			off += n
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
		}
		_, err := io.Copy(io.Discard, r)
		return err
	}
	for _, s := range cur.segs[len(prev.segs):] {
		r, err := w.open(s)
		if err != nil {
			return err
		}
		err = compare(r)
		if c, ok := r.(io.Closer); ok {
			c.Close()
		}
		if err != nil {
			return err
		}
	}
	if err := compare(bytes.NewReader(cur.data)); err != nil {
		return err
	}
	if off < len(want) {
		return fail("its ledger has %d entries, the previous one had %d: entries were removed (a truncated ledger)", cur.head.Seq, prev.head.Seq)
	}
	return nil
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// worktreeState is the ledger in the working tree, with the blob shas of
// HEAD for the files git reports unchanged (so they are not read again).
func (w *walker) worktreeState(ctx context.Context, abs string, head *state) (*state, error) {
	st := &state{label: worktree}
	changed := map[string]bool{}
	out, err := w.g.run(ctx, "status", "--porcelain", "--untracked-files=all", "--no-renames", "--", abs, ledger.SegmentDir(abs))
	if err != nil {
		return nil, fmt.Errorf("witness: compare the working tree with HEAD: %w", err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if len(l) > 3 {
			changed[filepath.Base(l[3:])] = true
		}
	}
	headSHA := map[string]string{}
	for _, s := range head.segs {
		headSHA[s.name] = s.sha
	}
	segs, err := ledger.Segments(abs)
	if err != nil {
		return nil, &Error{Where: worktree, Reason: err.Error()}
	}
	for _, s := range segs {
		b := blob{name: filepath.Base(s.Path), path: s.Path}
		switch {
		case !changed[b.name]:
			b.sha = headSHA[b.name]
		case headSHA[b.name] != "":
			return nil, &Error{Where: worktree, Reason: fmt.Sprintf("sealed segment %s/%s differs from the committed one: the ledger was rewritten", w.segName, b.name)}
		}
		st.segs = append(st.segs, b)
	}
	st.active = blob{name: w.activeName, path: abs}
	if !changed[w.activeName] {
		st.active.sha = head.active.sha
	}
	st.data, err = os.ReadFile(abs)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("witness: %w", err)
	}
	if st.head, err = w.headOf(st); err != nil {
		return nil, &Error{Where: worktree, Reason: err.Error()}
	}
	return st, nil
}
