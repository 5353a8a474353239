package witness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
)

// The git witness remembers (architecture §4.13): each Check that finds the
// history sound records the head of HEAD's ledger in the clone's git
// directory (optr-witness, which git never commits), and each later Check
// makes sure the ledger still holds every head recorded there. A history
// rewritten and force-pushed, however consistently re-chained, then fails
// in any clone that verified the honest one, naming the head it lost.

// memoryName is the file in the clone's (common) git directory.
const memoryName = "optr-witness"

// memoryHeader starts the file.
const memoryHeader = "# optr ledger verify --witness: ledger heads verified in this clone (seq hash commit time ledger); not committed\n"

// seenHead is a head a Check verified.
type seenHead struct {
	head   ledger.Head
	commit string
	at     string // RFC 3339
	ledger string // the ledger's path in the repository
}

func (s seenHead) line() string {
	return fmt.Sprintf("%d %s %s %s %s\n", s.head.Seq, s.head.Hash, s.commit, s.at, s.ledger)
}

// memory is the memory file of one clone, for one ledger.
type memory struct {
	path   string
	ledger string
	heads  []seenHead // of this ledger, in file order
}

// openMemory reads the heads remembered for the ledger at repository path
// rel in the clone g works in.
func openMemory(ctx context.Context, g git, rel string) (*memory, error) {
	dir, err := g.run(ctx, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return nil, fmt.Errorf("witness: find the clone's git directory: %w", err)
	}
	m := &memory{path: filepath.Join(strings.TrimSpace(string(dir)), memoryName), ledger: rel}
	f, err := os.Open(m.path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		s, err := parseSeen(l)
		if err != nil {
			return nil, fmt.Errorf("witness: %s line %d: %v; it is optr's own record of the heads this clone verified: remove the line, or the file, to start again", m.path, n, err)
		}
		if s.ledger == rel {
			m.heads = append(m.heads, s)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("witness: read %s: %w", m.path, err)
	}
	return m, nil
}

func parseSeen(l string) (seenHead, error) {
	f := strings.SplitN(l, " ", 5)
	if len(f) != 5 {
		return seenHead{}, errors.New("want seq, hash, commit, time and ledger path")
	}
	seq, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || seq < 1 || len(f[1]) != 64 {
		return seenHead{}, fmt.Errorf("%q is not a head (seq and hash)", f[0]+" "+f[1])
	}
	return seenHead{head: ledger.Head{Seq: seq, Hash: f[1]}, commit: f[2], at: f[3], ledger: f[4]}, nil
}

// check makes sure the ledger at path holds every remembered head. The
// newest one is enough when it holds (its hash pins every entry before
// it); when it does not, the first remembered head that no longer holds is
// named. A head beyond the ledger's end is no rewrite when its commit
// descends from HEAD: the clone has an older commit checked out.
func (m *memory) check(ctx context.Context, g git, path string) error {
	if len(m.heads) == 0 {
		return nil
	}
	newest := slices.MaxFunc(m.heads, func(a, b seenHead) int { return int(a.head.Seq - b.head.Seq) })
	found, err := ledger.Lookup(path, []int64{newest.head.Seq}, nil)
	if err != nil {
		return fmt.Errorf("witness: %w", err)
	}
	if found.BySeq[newest.head.Seq] == newest.head.Hash {
		return nil
	}
	var seqs []int64
	for _, s := range m.heads {
		seqs = append(seqs, s.head.Seq)
	}
	if found, err = ledger.Lookup(path, seqs, nil); err != nil {
		return fmt.Errorf("witness: %w", err)
	}
	byAge := slices.Clone(m.heads)
	slices.SortStableFunc(byAge, func(a, b seenHead) int { return int(a.head.Seq - b.head.Seq) })
	for _, s := range byAge {
		have, ok := found.BySeq[s.head.Seq]
		if ok && have == s.head.Hash {
			continue
		}
		now := fmt.Sprintf("entry %d is now %s", s.head.Seq, have)
		if !ok {
			if _, err := g.run(ctx, "merge-base", "--is-ancestor", "HEAD", s.commit); err == nil {
				continue // an older commit is checked out
			}
			now = fmt.Sprintf("the ledger has only %d entries, and commit %s is not in HEAD's future", found.Entries, s.commit)
		}
		return &Error{
			Where:  fmt.Sprintf("head %d (%s)", s.head.Seq, s.head.Hash),
			Reason: fmt.Sprintf("this clone verified it at commit %s on %s, but %s: the history was rewritten (a force-push) after it was verified (%s remembers it)", s.commit, s.at, now, m.path),
		}
	}
	return nil
}

// remember records head, the head of commit, unless a head at least as
// new is remembered already.
func (m *memory) remember(head ledger.Head, commit string, now time.Time) error {
	if head.Seq == 0 || slices.ContainsFunc(m.heads, func(s seenHead) bool { return s.head.Seq >= head.Seq }) {
		return nil
	}
	s := seenHead{head: head, commit: commit, at: now.UTC().Format(time.RFC3339), ledger: m.ledger}
	f, err := os.OpenFile(m.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("witness: remember the head: %w", err)
	}
	text := s.line()
	if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
		text = memoryHeader + text
	}
	_, werr := f.WriteString(text)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("witness: remember the head: %w", err)
	}
	m.heads = append(m.heads, s)
	return nil
}
