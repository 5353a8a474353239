package ledger

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// LocalOrigin is the checkpoint origin outside GitHub Actions.
const LocalOrigin = "optr/local"

// Origin is the default checkpoint origin for a repository: optr/<owner>/<repo>
// for "owner/repo" (as in GITHUB_REPOSITORY), LocalOrigin when repo is empty.
func Origin(repo string) string {
	if repo == "" {
		return LocalOrigin
	}
	return "optr/" + repo
}

// TreeHead is a ledger head in the C2SP tlog-checkpoint form: the origin
// (which log), the number of entries, and the RFC 6962 Merkle tree hash
// over the ledger's lines (see VerifyTree).
type TreeHead struct {
	Origin string
	Size   int64
	Root   tlog.Hash
}

// Text is the checkpoint's body as C2SP specifies it: the origin, the size
// in decimal and the base64 root hash, each on its own line. It is also the
// text a signed note signs.
func (c TreeHead) Text() string {
	return fmt.Sprintf("%s\n%d\n%s\n", c.Origin, c.Size, base64.StdEncoding.EncodeToString(c.Root[:]))
}

// ErrBadKey is the error Sign returns for a key that is not a note signing
// key.
var ErrBadKey = errors.New("the key is not a note signing key")

// ErrKeyName is the error Sign and CheckKeyName return for a key whose
// name is not the checkpoint's origin.
var ErrKeyName = errors.New("the key's name is not the checkpoint's origin")

// Sign returns the checkpoint as a signed note (golang.org/x/mod/sumdb/note)
// with the private key skey, as GenerateKey or `optr ledger keygen` made it.
// The key's name must be the checkpoint's origin (C2SP tlog-checkpoint: a
// witness looks the log's key up by the origin).
func (c TreeHead) Sign(skey string) ([]byte, error) {
	s, err := signer(skey, c.Origin)
	if err != nil {
		return nil, fmt.Errorf("sign the checkpoint: %w", err)
	}
	msg, err := note.Sign(&note.Note{Text: c.Text()}, s)
	if err != nil {
		return nil, fmt.Errorf("sign the checkpoint: %w", err)
	}
	return msg, nil
}

// CheckKeyName checks that skey is a note signing key named origin, so
// that the checkpoints it signs can be: the Action checks OPTR_LEDGER_KEY
// with it before any agent runs.
func CheckKeyName(skey, origin string) error {
	_, err := signer(skey, origin)
	return err
}

func signer(skey, origin string) (note.Signer, error) {
	s, err := note.NewSigner(strings.TrimSpace(skey))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadKey, err)
	}
	if s.Name() != origin {
		return nil, fmt.Errorf("%w: the key is named %q, the ledger's origin is %q; make a key named after the origin (`optr ledger keygen --origin %s`) and use it instead", ErrKeyName, s.Name(), origin, origin)
	}
	return s, nil
}

// GenerateKey makes a note signing key pair named name (by convention the
// checkpoint origin): skey is the private key for Sign (keep it secret,
// e.g. OPTR_LEDGER_KEY), vkey the public key for OpenCheckpoint.
func GenerateKey(name string) (skey, vkey string, err error) {
	skey, vkey, err = note.GenerateKey(rand.Reader, name)
	if err != nil {
		return "", "", fmt.Errorf("generate a ledger key named %q: %w", name, err)
	}
	return skey, vkey, nil
}

// ErrUnsigned is returned (wrapped) by OpenCheckpoint when a public key is
// given but the checkpoint carries no signature.
var ErrUnsigned = errors.New("the checkpoint is not signed")

// OpenCheckpoint reads a checkpoint, signed or not. With a public key vkey
// a signed checkpoint's signature must verify with it and an unsigned one
// is refused; without one the signature lines, if any, are not checked
// (signed reports whether there were any).
// One blank line after it is accepted (TrimBlankLine).
func OpenCheckpoint(data []byte, vkey string) (c TreeHead, signed bool, err error) {
	data = TrimBlankLine(data)
	text := data
	if i := bytes.Index(data, []byte("\n\n")); i >= 0 {
		text, signed = data[:i+1], true
	}
	if vkey != "" {
		if !signed {
			return TreeHead{}, false, fmt.Errorf("checkpoint: %w, but a public key was given", ErrUnsigned)
		}
		v, err := note.NewVerifier(strings.TrimSpace(vkey))
		if err != nil {
			return TreeHead{}, true, fmt.Errorf("checkpoint: the public key is not a note verifier key: %w", err)
		}
		n, err := note.Open(data, note.VerifierList(v))
		if err != nil {
			return TreeHead{}, true, fmt.Errorf("checkpoint: the signature does not verify with key %s: %w", v.Name(), err)
		}
		text = []byte(n.Text)
	}
	c, err = ParseCheckpoint(text)
	return c, signed, err
}

// TrimBlankLine drops one blank line after a checkpoint: the
// ledger-checkpoint output ends with a newline, which `echo "$CP" > file`
// doubles, and a note must end with exactly one.
func TrimBlankLine(data []byte) []byte {
	if bytes.HasSuffix(data, []byte("\n\n")) {
		return data[:len(data)-1]
	}
	return data
}

// ParseCheckpoint reads a checkpoint's body (Text), ignoring extension
// lines after the root hash.
func ParseCheckpoint(text []byte) (TreeHead, error) {
	lines := strings.Split(string(text), "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "" {
		return TreeHead{}, errors.New("checkpoint: want an origin line, a size line and a root hash line, each ending with a newline")
	}
	c := TreeHead{Origin: lines[0]}
	if c.Origin == "" {
		return TreeHead{}, errors.New("checkpoint: the origin line is empty")
	}
	n, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != lines[1] {
		return TreeHead{}, fmt.Errorf("checkpoint: the size line %q is not a decimal entry count", lines[1])
	}
	c.Size = n
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != len(c.Root) {
		return TreeHead{}, fmt.Errorf("checkpoint: the root hash line %q is not a base64 SHA-256 hash", lines[2])
	}
	copy(c.Root[:], root)
	return c, nil
}

// TreeHeadMismatchError says that a ledger does not hold a checkpoint.
type TreeHeadMismatchError struct {
	Checkpoint TreeHead
	// Entries is how many entries the ledger has.
	Entries int64
	// Root is the ledger's tree hash at the checkpoint's size (zero when
	// the ledger is shorter).
	Root tlog.Hash
}

func (e *TreeHeadMismatchError) Error() string {
	c := e.Checkpoint
	if e.Entries < c.Size {
		return fmt.Sprintf("checkpoint %s at size %d: the ledger has only %d entries: it was truncated, or the checkpoint is of another ledger", c.Origin, c.Size, e.Entries)
	}
	return fmt.Sprintf("checkpoint %s at size %d: the ledger's first %d entries have root %s, the checkpoint says %s: the ledger was rewritten, or the checkpoint is of another ledger",
		c.Origin, c.Size, c.Size, base64.StdEncoding.EncodeToString(e.Root[:]), base64.StdEncoding.EncodeToString(c.Root[:]))
}

// Holds checks that a verified ledger (its TreeSummary, computed with the
// checkpoint's size in at) holds checkpoint c: its first c.Size entries
// have c.Root. It returns a *TreeHeadMismatchError when not.
func (t TreeSummary) Holds(c TreeHead) error {
	root, ok := t.At[c.Size]
	if c.Size == t.Entries {
		root, ok = t.Root, true
	}
	if !ok || root != c.Root {
		return &TreeHeadMismatchError{Checkpoint: c, Entries: t.Entries, Root: root}
	}
	return nil
}

// HeadCheckpoint is the checkpoint of the ledger at path as it is now, for origin,
// as a signed note when skey (a private key, see GenerateKey) is set, else
// as plain checkpoint text.
//
// Its cost does not grow with the ledger: it reads the last sealed
// segment's tree file (checked against that segment's tail) and verifies
// and hashes the active segment, chained onto it. When a tree file it
// needs is missing or does not fit, it verifies and hashes the whole
// ledger instead (BuildTrees, which writes the missing tree files and
// names one that does not fit), so a tree file never makes a wrong
// checkpoint unnoticed; the full `optr ledger verify` recomputes them all.
func HeadCheckpoint(path, origin, skey string) ([]byte, error) {
	size, root, err := headTree(path)
	if err != nil {
		return nil, err
	}
	cp := TreeHead{Origin: origin, Size: size, Root: root}
	if skey == "" {
		return []byte(cp.Text()), nil
	}
	return cp.Sign(skey)
}

// headTree returns the size and Merkle tree hash of the ledger at path.
func headTree(path string) (int64, tlog.Hash, error) {
	v, err := openTreeView(path, -1, false)
	if err == nil {
		return v.size, v.root, nil
	}
	if !errors.Is(err, errTreeUnusable) {
		return 0, tlog.Hash{}, err
	}
	ts, err := BuildTrees(path)
	if err != nil {
		return 0, tlog.Hash{}, err
	}
	return ts.Entries, ts.Root, nil
}

// TreeHeadOf is the checkpoint, for origin, of a ledger known only by
// its last sealed segment's tree file (lastTree, nil when it has no sealed
// segment) and its active segment's content: what the Action has after a
// commit-back (the branch's active segment, and one small file), without
// the sealed segments themselves. The active segment is verified, chained
// onto the tree file's head; the tree file is checked only as far as it
// checks itself (its sum and shape): `optr ledger verify` in a clone checks
// it against the segments.
func TreeHeadOf(origin string, lastTree, active []byte) (TreeHead, error) {
	v, err := viewOf(lastTree, active, false)
	if err != nil {
		return TreeHead{}, fmt.Errorf("checkpoint: %w", err)
	}
	return TreeHead{Origin: origin, Size: v.size, Root: v.root}, nil
}
