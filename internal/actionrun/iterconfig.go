package actionrun

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/worktree"
)

// An iteration's workspace is the pull request's branch, which agents
// wrote from untrusted text (the issue, the review). Its config and the
// programs its command agents and checks run are trusted only as the
// base branch has them: the config is read at the base branch's tip, and
// an iteration whose branch changes the config or one of those programs
// is refused before anything runs, naming the files. Otherwise an agent's
// earlier result could edit a script the next `/optr run` runs with the
// secrets the config passes it.

// iterationConfig reads the config of an iteration on it.pull from its
// base branch and refuses (a *UsageError) a branch whose change, from its
// merge base to the workspace's HEAD (set as it.from), touches the config
// or a file its command agents or checks name. A config outside the
// workspace is not the branch's: it is read as for any run.
func (j *Job) iterationConfig(ctx context.Context, it *iteration) (*config.Config, error) {
	var err error
	if it.from, err = worktree.Head(ctx, "", j.workspace()); err != nil {
		return nil, err
	}
	file, explicit := j.configPath()
	rel, ok := j.workspaceRel(file)
	if !ok {
		return j.loadConfig()
	}
	base, err := j.gh.ReadTip(ctx, it.pull.BaseRef)
	if err != nil {
		return nil, fmt.Errorf("read the pull request's base branch %s: %w", it.pull.BaseRef, err)
	}
	data, err := j.gh.ReadFileAt(ctx, base.SHA, rel)
	if err != nil {
		return nil, fmt.Errorf("read %s on %s: %w", rel, it.pull.BaseRef, err)
	}
	cfg, err := config.ParseOrDefault(j.inWorkspace(file), data, explicit, j.agentEnv)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("the config on %s, which an iteration runs with: %w", it.pull.BaseRef, err)}
	}
	changed, err := j.gh.ChangedFiles(ctx, base.SHA, it.from)
	if err != nil {
		return nil, err
	}
	if touched := trustedTouched(rel, cfg, changed); len(touched) > 0 || len(changed) >= github.MaxChangedFiles {
		return nil, &UsageError{Err: untrustedChange(it, touched, len(changed))}
	}
	return j.settle(cfg)
}

// untrustedChange says why an iteration was refused and how to go on.
func untrustedChange(it *iteration, touched []string, changed int) error {
	if len(touched) == 0 {
		return fmt.Errorf("the branch %s changes %d files or more, too many to check that it leaves optr's config and the programs its command agents and checks run as %s has them; merge the pull request, or start again from an issue", it.pull.HeadRef, changed, it.pull.BaseRef)
	}
	return fmt.Errorf("the branch %s changes %s, which an iteration takes only from %s: optr's config, or a program its command agents or checks run with the secrets the config passes them. An agent may have written that change from untrusted text, so nothing runs. Merge the pull request (after review) or revert those changes on the branch, then `/optr run` again",
		it.pull.HeadRef, strings.Join(quoted(touched), ", "), it.pull.BaseRef)
}

// trustedTouched lists the changed files that are the config at cfgPath
// or that a command agent's or command check's argv names: a word of an
// argument (split at blanks and shell punctuation) that is the file or a
// folder holding it.
func trustedTouched(cfgPath string, cfg *config.Config, changed []string) []string {
	names := map[string]bool{cfgPath: true}
	add := func(argv []string) {
		for _, arg := range argv {
			for _, w := range strings.FieldsFunc(arg, shellBreak) {
				if w = path.Clean(w); w != "." && w != ".." && !path.IsAbs(w) && !strings.HasPrefix(w, "../") {
					names[w] = true
				}
			}
		}
	}
	for _, a := range cfg.Agents {
		if a.Provider == config.ProviderCommand {
			add(a.Run)
		}
	}
	for _, c := range cfg.Constraints {
		if c.Check == config.CheckCommand {
			add(c.Run)
		}
	}
	var out []string
	for _, f := range changed {
		for dir := f; dir != "." && dir != "/"; dir = path.Dir(dir) {
			if names[dir] {
				out = append(out, f)
				break
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// shellBreak splits an argument into the words a shell could run.
func shellBreak(r rune) bool {
	return strings.ContainsRune(" \t\n;&|()<>'\"`$=", r)
}

// workspaceRel is p (relative to the workspace, or absolute) as a
// slash-separated path inside the workspace; false when it is outside.
func (j *Job) workspaceRel(p string) (string, bool) {
	rel, err := filepath.Rel(j.workspace(), j.inWorkspace(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func quoted(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = "`" + s + "`"
	}
	return out
}
