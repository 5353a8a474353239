package pipeline

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"time"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/worktree"
)

// Spec is what one run is asked to do.
type Spec struct {
	Config *config.Config
	// Workflow is the workflow slug; RunID the run's id.
	Workflow, RunID string
	// Intent is the task (untrusted text).
	Intent string
	// Constraints are constraint names the intent adds to the config's.
	Constraints []string
	// Pipeline names a configured pipeline ("" = select over every agent).
	Pipeline string
	// Agents restricts the run to these agents ("" = all the pipeline's).
	Agents []string
	// Commit is the triggering commit (GITHUB_SHA), when known.
	Commit string
	// Datalake is the datalake root; LedgerPath the ledger file.
	Datalake, LedgerPath string
	// Dir is the workspace: the working directory of command agents and checks.
	Dir string
	// PullRequest is set for a run that iterates on a pull request optr
	// opened (architecture §4.16): its number, and Iteration the run's place
	// among the runs on it (2 for the first iteration; the run that opened
	// it is 1). π*'s change goes onto the pull request's branch.
	PullRequest, Iteration int
	// ConfigPath is where the config is read from, whether or not a file
	// is there (without one the embedded default runs); "" means
	// Config.Path.
	ConfigPath string
	// Own are optr's own files and folders relative to the repository's
	// top level, as a matrix plan recorded them from its job's datalake,
	// ledger and config (the tasks run on scratch ones): no agent's
	// change may touch them, nor those OwnFiles names.
	Own []worktree.Own
}

// Deps are the run's connections to the world; tests swap them.
type Deps struct {
	// Getenv reads the environment (API keys, base URLs).
	Getenv func(string) string
	// Environ is the base environment of command agents and checks.
	Environ []string
	// HTTPClient is used by LLM providers (nil = the default client).
	HTTPClient *http.Client
	// Now is the clock.
	Now func() time.Time
	// OnEvent hears agent state changes (progress displays).
	OnEvent func(executor.Event)
	// OnEscalation hears each watcher decision as it is made (the Action
	// posts an escalation comment when a human is needed).
	OnEscalation func(escalation.Escalation)
	// Stderr receives the watcher's log lines (nil: discarded).
	Stderr io.Writer
	// Logf logs diagnostics (malformed frames, retries); nil = discard.
	Logf func(format string, args ...any)
	// SandboxUnavailable marks sandbox layers ("fs", "net", "user") as
	// unavailable with a reason, whatever the kernel allows: tests of
	// sandbox.mode auto and strict on a machine that has them all.
	SandboxUnavailable map[string]string
	// WorktreeRoot holds the agents' git worktrees when they change code
	// (outside the workspace; "" = worktree.DefaultRoot()).
	WorktreeRoot string
}

func (d Deps) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

func (d Deps) logf(format string, args ...any) {
	if d.Logf != nil {
		d.Logf(format, args...)
	}
}

// WorkspacePath returns path relative to the workspace (Dir, else the
// current directory), with forward slashes: how the repository names it.
// A path outside the workspace is an error.
func (s Spec) WorkspacePath(path string) (string, error) {
	ws := s.Dir
	if ws == "" {
		ws = "."
	}
	absWS, err := filepath.Abs(ws)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absWS, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s is outside the workspace %s", path, absWS)
	}
	return filepath.ToSlash(rel), nil
}

// OwnFiles are optr's own files and folders of the run, by absolute path:
// the ledger and its sealed segments, the datalake and the config file
// (where one would be read from, when the embedded default runs for want
// of it: creating it changes the next run's rules). No agent's change may touch one of
// them (worktree.Own); the ledger comes first, so a change to it is named
// as one, not as one in the datalake that holds it.
func (s Spec) OwnFiles() []worktree.Own {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(s.Dir, p)
	}
	var own []worktree.Own
	if s.LedgerPath != "" {
		own = append(own,
			worktree.Own{Path: abs(s.LedgerPath), What: "optr's ledger"},
			worktree.Own{Path: abs(ledger.SegmentDir(s.LedgerPath)), What: "optr's sealed ledger segments"})
	}
	own = append(own, worktree.Own{Path: abs(s.Datalake), What: "optr's datalake"})
	cfg := s.ConfigPath
	if cfg == "" && s.Config != nil {
		cfg = s.Config.Path
	}
	return append(own, worktree.Own{Path: abs(cfg), What: "optr's config file"})
}

// DisplayPath names path for the person who started the run: relative to
// the workspace when it lies inside it (how the repository names it), else
// absolute. The CLI's datalake and ledger may be anywhere.
func (s Spec) DisplayPath(path string) string {
	if rel, err := s.WorkspacePath(path); err == nil {
		return rel
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}
