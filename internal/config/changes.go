package config

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/optr-dev/optr/internal/lazyregexp"
)

// Code-change modes (changes.mode, architecture §4.12).
const (
	// ChangesNone: agents do not change code (the default).
	ChangesNone = "none"
	// ChangesPullRequest: π*'s patch becomes a pull request.
	ChangesPullRequest = "pull-request"
	// ChangesApply: π*'s patch is applied to the working tree (CLI).
	ChangesApply = "apply"
)

// ChangesModes are the allowed values of changes.mode, and of the
// action's changes input.
var ChangesModes = []string{ChangesNone, ChangesPullRequest, ChangesApply}

// The defaults of changes:.
const defaultMaxFiles = 50

// defaultProtect are the paths no change may touch unless the file says
// otherwise: the workflows (which GITHUB_TOKEN may not change anyway) and
// the datalake.
var defaultProtect = []string{".github/workflows/**", ".optr/**"}

// Changes configures code changes as results (architecture §4.12).
type Changes struct {
	// Mode is none, pull-request or apply (default none).
	Mode string `yaml:"mode" json:"mode"`
	// Base is the pull request's base branch; empty means the repository's
	// default branch.
	Base string `yaml:"base" json:"base,omitempty"`
	// Protect are globs of paths ("**" spans directories) a change must not
	// touch to be admissible.
	Protect []string `yaml:"protect" json:"protect"`
	// MaxFiles is the most files an admissible change touches (default 50).
	MaxFiles int `yaml:"max-files" json:"max-files"`
	// MaxDeletions is the most files an admissible change deletes; 0 (the
	// default) means half the files tracked at the commit the agents start
	// from.
	MaxDeletions int `yaml:"max-deletions" json:"max-deletions,omitempty"`
	// Draft opens the pull request as a draft (default true).
	Draft bool `yaml:"draft" json:"draft"`
	// CI names workflow files of .github/workflows (ci.yml) that optr
	// starts on the pull request's branch with workflow_dispatch when no
	// pr-token opened it (architecture §4.16).
	CI []string `yaml:"ci" json:"ci,omitempty"`
}

// On reports whether agents change code: every mode but none.
func (c Changes) On() bool { return c.Mode != "" && c.Mode != ChangesNone }

// changesDefaults fills the keys of changes: the file did not write.
func changesDefaults(c *Changes, unset func(key string) bool) {
	if unset("changes.mode") {
		c.Mode = ChangesNone
	}
	if unset("changes.protect") {
		c.Protect = append([]string(nil), defaultProtect...)
	}
	if c.Protect == nil {
		c.Protect = []string{}
	}
	setInt(&c.MaxFiles, defaultMaxFiles, unset("changes.max-files"))
	if unset("changes.draft") {
		c.Draft = true
	}
}

func (v *validator) changes() {
	c := v.c.Changes
	v.enum("changes.mode", "changes mode", c.Mode, ChangesModes)
	if v.written("changes.base") && !validBranch(c.Base) {
		v.ps.add("changes.base", "%q is not a valid branch name", c.Base)
	}
	for i, p := range c.Protect {
		if err := protectError(p); err != nil {
			v.ps.add(fmt.Sprintf("changes.protect[%d]", i), "%v", err)
		}
	}
	v.atLeast("changes.max-files", int64(c.MaxFiles), 1)
	if v.written("changes.max-deletions") {
		v.atLeast("changes.max-deletions", int64(c.MaxDeletions), 1)
	}
	seen := map[string]bool{}
	for i, f := range c.CI {
		key := fmt.Sprintf("changes.ci[%d]", i)
		switch {
		case !workflowFileRE.MatchString(f):
			v.ps.add(key, "%q is not a workflow file name: write the name of a file in .github/workflows, such as ci.yml", f)
		case seen[f]:
			v.ps.add(key, "%s is listed twice", f)
		}
		seen[f] = true
	}
}

// workflowFileRE is a workflow file's name in .github/workflows, as the
// dispatch API takes it.
var workflowFileRE = lazyregexp.New(`^[A-Za-z0-9_][A-Za-z0-9._-]*\.ya?ml$`)

// protectError reports what is wrong with a changes.protect glob, or nil.
// The glob is matched by doublestar.Match against slash-separated paths
// relative to the repository root (internal/worktree, Policy.Admit): "**"
// spans directories, "*", "?" and "[…]" never cross a "/", "{a,b}" is
// either. Beyond what doublestar.ValidatePattern checks, a glob must be
// relative, use "/" between directories, and write "**" as a whole
// segment, so that it means what it reads as.
func protectError(pattern string) error {
	switch {
	case pattern == "":
		return fmt.Errorf("the pattern is empty")
	case strings.HasPrefix(pattern, "/"):
		return fmt.Errorf("%q starts with '/': patterns are relative to the repository root, write it without", pattern)
	case strings.Contains(pattern, "\\"):
		return fmt.Errorf("%q contains '\\': use '/' between directories", pattern)
	}
	for _, seg := range strings.Split(pattern, "/") {
		switch {
		case seg == "" || seg == "." || seg == "..":
			return fmt.Errorf("%q has an empty, '.' or '..' segment", pattern)
		case seg != "**" && strings.Contains(seg, "**"):
			return fmt.Errorf("%q: '**' must be a whole segment (a/**/b), not part of one", pattern)
		case !doublestar.ValidatePattern(seg):
			return fmt.Errorf("%q: segment %q is not a valid pattern (an unclosed '[' or '{', or an empty '[]')", pattern, seg)
		}
	}
	return nil
}
