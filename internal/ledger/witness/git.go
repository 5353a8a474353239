package witness

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// git runs git in a repository.
type git struct {
	dir string
}

// run runs a git command and returns its standard output.
func (g git) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", g.dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// catFile is a running `git cat-file --batch`: objects by name, streamed.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (g git) catFile(ctx context.Context) (*catFile, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", g.dir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git cat-file: %w", err)
	}
	return &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

func (c *catFile) close() {
	c.in.Close()
	c.cmd.Wait()
}

// errMissing is an object name git does not know (e.g. a path that is not
// in a commit's tree).
var errMissing = errors.New("missing")

// object asks for an object and returns its type and a reader of exactly
// its content, which the caller must read to the end (or discard) before
// the next request.
func (c *catFile) object(name string) (typ string, size int64, body io.Reader, err error) {
	if _, err := fmt.Fprintf(c.in, "%s\n", name); err != nil {
		return "", 0, nil, fmt.Errorf("git cat-file: %w", err)
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return "", 0, nil, fmt.Errorf("git cat-file: %w", err)
	}
	f := strings.Fields(header)
	if len(f) == 2 && f[1] == "missing" {
		return "", 0, nil, errMissing
	}
	if len(f) != 3 {
		return "", 0, nil, fmt.Errorf("git cat-file: unexpected answer %q", header)
	}
	size, err = strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return "", 0, nil, fmt.Errorf("git cat-file: unexpected answer %q", header)
	}
	return f[1], size, &objectReader{r: c.out, left: size}, nil
}

// read returns a whole object's content.
func (c *catFile) read(name string) (string, []byte, error) {
	typ, _, body, err := c.object(name)
	if err != nil {
		return "", nil, err
	}
	b, err := io.ReadAll(body)
	return typ, b, err
}

// objectReader reads one object's content and the newline after it.
type objectReader struct {
	r    *bufio.Reader
	left int64
}

func (o *objectReader) Read(p []byte) (int, error) {
	if o.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > o.left {
		p = p[:o.left]
	}
	n, err := o.r.Read(p)
	o.left -= int64(n)
	if o.left == 0 {
		if _, err := o.r.ReadByte(); err != nil { // the newline after the content
			return n, fmt.Errorf("git cat-file: %w", err)
		}
	}
	if err == io.EOF && o.left > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// treeEntry is one entry of a git tree object.
type treeEntry struct {
	name, sha string
	tree      bool
}

// parseTree reads a raw tree object: "<mode> <name>\0<20-byte sha>" entries.
func parseTree(b []byte) ([]treeEntry, error) {
	var out []treeEntry
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		nul := bytes.IndexByte(b, 0)
		if sp < 0 || nul < sp || len(b) < nul+21 {
			return nil, errors.New("malformed tree object")
		}
		mode := string(b[:sp])
		out = append(out, treeEntry{name: string(b[sp+1 : nul]), sha: fmt.Sprintf("%x", b[nul+1:nul+21]), tree: mode == "40000"})
		b = b[nul+21:]
	}
	return out, nil
}

// commitMessage returns the message of a raw commit object.
func commitMessage(b []byte) string {
	if i := bytes.Index(b, []byte("\n\n")); i >= 0 {
		return string(b[i+2:])
	}
	return ""
}
