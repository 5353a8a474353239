package actionrun

import (
	"context"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/detect"
	"github.com/optr-dev/optr/internal/execpaths"
	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/worktree"
)

// An iteration's workspace is the pull request's branch, which agents
// wrote from untrusted text (the issue, the review). Everything its agents
// and checks execute or load is trusted only as the base branch has it
// (architecture §4.16): an iteration whose branch changes any such file is
// refused before anything runs (exit 2), naming the files. Otherwise an
// agent's earlier result could plant code — a file a check's script
// sources, a Makefile target, a Claude Code hook — that the next
// `/optr run` executes with the keys it is given.
//
// Refusing, rather than building the agents' working files from the base
// branch's tree, keeps what the agents start from, what the checks verify
// and what the pull request holds one and the same tree: a maintainer
// reviews and merges exactly what was tested, and nothing is silently
// swapped (docs/code-changes.md says how to go on).
//
// The files trusted only from the base branch are:
//   - the config;
//   - what the config's command agents and command checks run, and what
//     that loads, followed statically in the workspace (execpaths: named
//     files, sourced files, Makefiles and their includes and recipes,
//     package.json and its scripts, python -m packages, go run's packages
//     and the module's packages they import), and json-schema checks'
//     schemas and the schemas beside them;
//   - every automation and execution-entry path of detection's curated
//     list (detect.PathKind): workflows, git hooks and attributes, build
//     entry points, package managers' config, and the coding agents' own
//     project files (.claude/, CLAUDE.md, AGENTS.md, .mcp.json, .codex/,
//     .gemini/, …), which those agents load and obey.

// iterationConfig reads the config of an iteration on it.pull from its
// base branch and refuses (a *UsageError) a branch whose change, from its
// merge base to the workspace's HEAD (set as it.from), touches a file an
// iteration trusts only from the base (above). A config outside the
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
	if touched := trustedTouched(j.workspace(), rel, cfg, changed); len(touched) > 0 || len(changed) >= github.MaxChangedFiles {
		return nil, &UsageError{Err: untrustedChange(it, touched, len(changed))}
	}
	return j.settle(cfg)
}

// untrustedChange says why an iteration was refused and how to go on.
func untrustedChange(it *iteration, touched []string, changed int) error {
	if len(touched) == 0 {
		return fmt.Errorf("the branch %s changes %d files or more, too many to check that it leaves what optr's agents and checks execute or load as %s has it; merge the pull request, or start again from an issue", it.pull.HeadRef, changed, it.pull.BaseRef)
	}
	return fmt.Errorf("the branch %s changes %s, which an iteration takes only from %s: what optr's agents and checks execute or load, with the keys the config gives them. An agent may have written that change from untrusted text, so nothing runs. Review those changes, then merge the pull request or revert them on the branch, and `/optr run` again",
		it.pull.HeadRef, strings.Join(touched, "; "), it.pull.BaseRef)
}

// trustedTouched lists the changed files an iteration trusts only from the
// base branch, each quoted with why: the config at cfgPath, what cfg's
// command agents and checks execute or load in the checkout at root, and
// the curated automation and execution-entry paths.
func trustedTouched(root, cfgPath string, cfg *config.Config, changed []string) []string {
	set := execpaths.NewSet()
	set.AddFile(cfgPath, "optr's config")
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		if a := cfg.Agents[name]; a.Provider == config.ProviderCommand {
			set.Of(root, a.Run)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Constraints)) {
		switch c := cfg.Constraints[name]; c.Check {
		case config.CheckCommand:
			set.Of(root, c.Run)
		case config.CheckJSONSchema:
			set.AddFile(c.Schema, "the schema of the hard check "+name)
			set.AddFlat(path.Dir(path.Clean(c.Schema)), ".json", "beside the schema of the check "+name+", which it may refer to")
		}
	}
	var out []string
	for _, f := range changed {
		why, ok := set.Match(f)
		if !ok {
			var kind string
			if kind, why = detect.PathKind(f); kind == "" {
				continue
			}
		}
		out = append(out, fmt.Sprintf("`%s` (%s)", f, why))
	}
	slices.Sort(out)
	return slices.Compact(out)
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
