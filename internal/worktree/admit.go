package worktree

import (
	"fmt"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/status"
)

// VerdictName is the constraint name under which a change's admissibility
// appears in a result's checks and the score table.
const VerdictName = "changes"

// Policy is the changes: config's say on which changes may be selected.
type Policy struct {
	// Protect are globs of repository paths a change must not touch,
	// matched by doublestar.Match ("**" spans directories).
	Protect []string
	// MaxFiles is the most files a change may touch; 0 means no limit.
	MaxFiles int
	// MaxDeletions is the most files a change may delete; 0 means half of
	// Tracked.
	MaxDeletions int
	// Tracked is the number of files tracked at the change's base (see
	// Run.Tracked); 0 means unknown, and then only MaxDeletions bounds
	// deletions.
	Tracked int
	// Own are optr's own files and folders in the repository (OwnIn): a
	// change touching one is never admissible, whatever Protect says.
	Own []Own
}

// PolicyOf is the Policy of a config's changes: section. Its Tracked is
// unknown: set it to apply the default bound on deletions.
func PolicyOf(c config.Changes) Policy {
	return Policy{Protect: c.Protect, MaxFiles: c.MaxFiles, MaxDeletions: c.MaxDeletions}
}

// Verdict is whether a change may be selected, and why not.
type Verdict struct {
	Admissible bool
	// Reason says why the change is not admissible, its cause first
	// ("touches optr's ledger: …", "protected by …"), as the score
	// table's FAILED cell shows it; empty when it is.
	Reason string
}

// Admit decides whether ch may be selected: a refused change, an empty
// change, one touching optr's own files (Own) or a protected path, one
// touching more than MaxFiles files, or one deleting more files than
// MaxDeletions (by default half of Tracked) is not admissible.
func (p Policy) Admit(ch Change) Verdict {
	no := func(format string, args ...any) Verdict {
		return Verdict{Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case ch.Refused != "":
		return no("refused: %s", ch.Refused)
	case len(ch.Files) == 0 || len(ch.Patch) == 0:
		return no("empty patch: the agent changed no file")
	case p.MaxFiles > 0 && len(ch.Files) > p.MaxFiles:
		return no("touches %d files, more than changes.max-files (%d)", len(ch.Files), p.MaxFiles)
	}
	if d := ch.deleted(); p.MaxDeletions > 0 && d > p.MaxDeletions {
		return no("deletes %d files, more than changes.max-deletions (%d)", d, p.MaxDeletions)
	} else if p.MaxDeletions == 0 && p.Tracked > 0 && d > p.Tracked/2 {
		return no("deletes %d of the %d tracked files, more than half of them (set changes.max-deletions to allow more)", d, p.Tracked)
	}
	for _, f := range ch.Files {
		if how := touchesOwn(p.Own, f.Path); how != "" {
			return no("touches %s: %s, which no change may touch (changes.protect cannot allow it)", how, f.Path)
		}
	}
	for _, f := range ch.Files {
		for _, g := range p.Protect {
			if protected(g, f.Path) {
				return no("protected by %q (changes.protect): the change touches %s", g, f.Path)
			}
		}
	}
	return Verdict{Admissible: true}
}

// deleted is the number of files ch deletes.
func (ch Change) deleted() int {
	n := 0
	for _, f := range ch.Files {
		if f.Status == "D" {
			n++
		}
	}
	return n
}

// Check returns v as the hard constraint VerdictName, to stand beside a
// result's other verdicts.
func (v Verdict) Check() check.Verdict {
	if v.Admissible {
		return check.Verdict{Constraint: VerdictName, Hard: true, Status: status.Passed}
	}
	return check.Verdict{Constraint: VerdictName, Hard: true, Status: status.Failed, Reason: v.Reason}
}

// protected reports whether the repository path name matches the protect
// glob pattern, the whole path: ".github/workflows/**" matches everything
// below that directory and the directory itself, "**/*.pem" a .pem file
// at any depth, "*.pem" one at the top only. A malformed pattern (config
// refuses them) matches nothing.
func protected(pattern, name string) bool {
	ok, err := doublestar.Match(pattern, name)
	return err == nil && ok
}
