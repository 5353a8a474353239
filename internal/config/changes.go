package config

import (
	"fmt"

	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/pathglob"
)

// Code-change modes (changes.mode, DESIGN §4.12).
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

// Changes configures code changes as results (DESIGN §4.12).
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
	// Draft opens the pull request as a draft (default true).
	Draft bool `yaml:"draft" json:"draft"`
	// CI names workflow files of .github/workflows (ci.yml) that optr
	// starts on the pull request's branch with workflow_dispatch when no
	// pr-token opened it (DESIGN §4.16).
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
		if err := pathglob.Validate(p); err != nil {
			v.ps.add(fmt.Sprintf("changes.protect[%d]", i), "%v", err)
		}
	}
	v.atLeast("changes.max-files", int64(c.MaxFiles), 1)
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
