package preflight

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/optr-dev/optr/internal/inputfile"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/worktree"
)

// Input is what a run is about to write.
type Input struct {
	// LedgerPath is the ledger file (--ledger, or <datalake>/ledger.jsonl).
	LedgerPath string
	// Datalake is the datalake directory as the user gave it (--datalake,
	// or the Action's datalake input).
	Datalake string
	// Workspace, when set, is the directory the datalake must stay inside:
	// the Action commits the datalake, so INPUT_DATALAKE may be neither
	// absolute nor leave the workspace with "..". The CLI leaves it empty:
	// its paths may be anywhere the user can write (architecture §4.1).
	Workspace string
	// Repository, when set, is the directory agents work from: the git
	// configuration of the repository that holds it must carry no
	// credential (architecture §4.14), since agents and checks can read it.
	Repository string
}

// Error lists every problem preflight found. The run must not start; the
// caller exits 2 (a usage or configuration error).
type Error struct {
	Problems []string
}

func (e *Error) Error() string {
	if len(e.Problems) == 1 {
		return "before starting any agent: " + e.Problems[0]
	}
	return "before starting any agent:\n  - " + strings.Join(e.Problems, "\n  - ")
}

// Report is what preflight noticed that does not stop the run.
type Report struct {
	// Warnings are said to the user and the run goes on.
	Warnings []string
}

// Check runs every check and returns an *Error naming each problem, or the
// warnings when the run may go on. It writes nothing that stays: to learn
// whether a directory is writable it creates and removes a temporary file.
// It never opens a FIFO or a device, so it cannot block.
func Check(ctx context.Context, in Input) (Report, error) {
	var rep Report
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if in.Workspace != "" {
		if msg := datalakeInWorkspace(in.Workspace, in.Datalake); msg != "" {
			add("%s", msg)
		}
	}
	if len(problems) == 0 && in.Datalake != "" {
		dir := in.Datalake
		if in.Workspace != "" && !filepath.IsAbs(dir) {
			dir = filepath.Join(in.Workspace, dir)
		}
		if msg := writableDir(dir, "the datalake"); msg != "" {
			add("%s", msg)
		}
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if in.Repository != "" {
		found, err := worktree.Credentials(ctx, "", in.Repository)
		if err != nil {
			return rep, err
		}
		if len(found) > 0 {
			add("the workspace's git configuration carries a credential: %s; %s", strings.Join(found, "; "), worktree.CredentialAdvice)
		}
	}
	if in.LedgerPath != "" {
		warn, msg := ledgerFile(in.LedgerPath)
		if msg != "" {
			add("%s", msg)
		}
		if warn != "" {
			rep.Warnings = append(rep.Warnings, warn)
		}
	}
	if len(problems) > 0 {
		return rep, &Error{Problems: problems}
	}
	return rep, nil
}

// datalakeInWorkspace checks the Action's datalake input: a directory
// of its own inside the workspace, reached without a symbolic link (the
// Action commits it, and writes there), neither the workspace itself nor
// inside its .git.
func datalakeInWorkspace(workspace, dir string) string {
	const must = "the Action commits the datalake, so it must be a directory of its own inside the workspace, such as .optr"
	clean := filepath.Clean(dir)
	first, _, _ := strings.Cut(filepath.ToSlash(clean), "/")
	switch {
	case dir == "":
		return ""
	case filepath.IsAbs(dir) || strings.HasPrefix(dir, "/") || strings.HasPrefix(dir, `\`):
		return fmt.Sprintf("the datalake input %q is an absolute path; %s", dir, must)
	case !filepath.IsLocal(dir):
		return fmt.Sprintf("the datalake input %q leaves the workspace; %s", dir, must)
	case clean == ".":
		return fmt.Sprintf("the datalake input %q is the workspace itself; %s", dir, must)
	case strings.EqualFold(first, ".git"):
		return fmt.Sprintf("the datalake input %q is inside the repository's .git directory; %s", dir, must)
	}
	// Every part of the path that exists must be a directory, not a link:
	// a link would send the Action's writes (and what it commits) elsewhere.
	p := workspace
	for part := range strings.SplitSeq(filepath.ToSlash(clean), "/") {
		p = filepath.Join(p, part)
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return ""
		}
		if err != nil {
			return fmt.Sprintf("the datalake %s cannot be used: %v", p, err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			return fmt.Sprintf("the datalake input %q goes through the symbolic link %s (to %s); %s", dir, p, target, must)
		}
	}
	return ""
}

// ledgerFile checks the ledger path: a regular file (or nothing yet) that
// can be appended to, whose head can be read, and whose sealed segments
// still make one ledger with it (ledger.CheckShape).
func ledgerFile(path string) (warning, problem string) {
	warning, problem = activeSegment(path)
	if problem != "" {
		return warning, problem
	}
	if err := ledger.CheckShape(path); err != nil {
		return warning, fmt.Sprintf("%v; run `optr ledger verify --ledger %s` to see what is wrong, and restore the ledger's files (git checkout of the ledger branch) before the next run", err, path)
	}
	return warning, ""
}

// activeSegment checks the active segment at path.
func activeSegment(path string) (warning, problem string) {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", writableDir(filepath.Dir(path), "the ledger's directory")
	}
	if err != nil {
		return "", fmt.Sprintf("the ledger %s cannot be read: %v", path, err)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		if info, err = os.Stat(path); err != nil {
			return "", fmt.Sprintf("the ledger %s is a symbolic link to %s, which does not exist; remove the link or point --ledger at a file", path, target)
		}
	}
	switch {
	case info.IsDir():
		return "", fmt.Sprintf("the ledger %s is a directory; point --ledger at a file, such as %s", path, filepath.Join(path, "ledger.jsonl"))
	case !info.Mode().IsRegular():
		return "", fmt.Sprintf("the ledger %s is not a regular file (%s); point --ledger at a file", path, inputfile.Kind(info.Mode()))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return "", fmt.Sprintf("the ledger %s cannot be written: %v", path, err)
	}
	f.Close()
	return ledgerHead(path, info.Size())
}

// ledgerHead reads the ledger's last line the way the next append will.
func ledgerHead(path string, size int64) (warning, problem string) {
	if size == 0 {
		return "", ""
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Sprintf("the ledger %s cannot be read: %v", path, err)
	}
	defer f.Close()
	tail := make([]byte, min(size, 2))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
		return "", fmt.Sprintf("the ledger %s cannot be read: %v", path, err)
	}
	switch {
	case bytes.HasSuffix(tail, []byte("\r\n")):
		return "", fmt.Sprintf("the ledger %s has Windows line ends (CRLF), so its lines no longer hash to their entries; restore it with LF line ends (git: add `*.jsonl text eol=lf` to .gitattributes and check it out again), then run `optr ledger verify --ledger %s`", path, path)
	case tail[len(tail)-1] != '\n':
		return fmt.Sprintf("the ledger %s ends in a line without a newline; the next append completes it when it is a whole entry that chains (its newline was stripped), else removes it as a write that was cut off, and says so; `optr ledger verify --ledger %s` shows it", path, path), ""
	}
	if _, err := ledger.TailHead(path); err != nil {
		return "", fmt.Sprintf("%v; run `optr ledger verify --ledger %s` to see the first bad line", err, path)
	}
	return "", ""
}

// writableDir checks that dir (or its nearest existing parent, where it
// would be created) is a directory a file can be created in.
func writableDir(dir, what string) string {
	p := filepath.Clean(dir)
	for {
		info, err := os.Stat(p)
		if err == nil {
			if !info.IsDir() {
				if p == filepath.Clean(dir) {
					return fmt.Sprintf("%s %s is not a directory (%s)", what, dir, inputfile.Kind(info.Mode()))
				}
				return fmt.Sprintf("%s %s cannot be created: %s is not a directory", what, dir, p)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Sprintf("%s %s cannot be used: %v", what, dir, err)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return fmt.Sprintf("%s %s cannot be created: no parent directory exists", what, dir)
		}
		p = parent
	}
	f, err := os.CreateTemp(p, ".optr-preflight-*")
	if err != nil {
		return fmt.Sprintf("%s %s cannot be written: %v", what, dir, err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return ""
}
