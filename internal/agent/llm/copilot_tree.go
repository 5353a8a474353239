package llm

import (
	"os"
	"path/filepath"
	"strings"

	copilot "github.com/github/copilot-sdk/go"
	"github.com/github/copilot-sdk/go/rpc"
)

// codingTools are the Copilot CLI's built-in tools a coding agent is
// offered: reading, searching and editing files. No shell: an agent
// driven by an issue's untrusted text runs no commands (the run's checks
// run them), so it cannot read the job's git credentials or reach the
// network.
var codingTools = []string{"view", "create", "edit", "grep", "glob"}

// treePermissions is a coding agent's permission handler: reads and writes
// of paths inside root are approved, except under .git; everything else
// (shell commands, URLs, MCP servers, memory, extensions, paths outside
// root, also through a symbolic link) is refused.
func treePermissions(root string) copilot.PermissionHandlerFunc {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = filepath.Clean(root)
	}
	return func(req copilot.PermissionRequest, _ copilot.PermissionInvocation) (rpc.PermissionDecision, error) {
		var path string
		var resolved *string
		switch r := req.(type) {
		case rpc.PermissionRequestRead:
			path, resolved = r.Path, r.ResolvedPath
		case *rpc.PermissionRequestRead:
			path, resolved = r.Path, r.ResolvedPath
		case rpc.PermissionRequestWrite:
			path, resolved = r.FileName, r.ResolvedPath
		case *rpc.PermissionRequestWrite:
			path, resolved = r.FileName, r.ResolvedPath
		default:
			return outsideTree(), nil
		}
		if req.RequiresManagedApproval() || !inTree(real, root, path) || (resolved != nil && *resolved != "" && !inTree(real, root, *resolved)) {
			return outsideTree(), nil
		}
		return rpc.PermissionDecisionApproveOnce{}, nil
	}
}

// outsideTree is the refusal of a request outside the worktree. With
// feedback, the CLI tells the model why and the turn goes on (a refusal
// without it ends the turn, as a person saying no would).
func outsideTree() rpc.PermissionDecision {
	why := "optr allows reading and writing files inside your working directory (not under .git) only, and no other tools"
	return rpc.PermissionDecisionReject{Feedback: &why}
}

// inTree reports whether p (relative paths are taken from dir, the
// worktree as given) names a path inside real (the worktree with its
// symbolic links resolved) and outside any .git (a component named .git
// in any case), once the symbolic links of the part of p that exists are
// resolved.
func inTree(real, dir, p string) bool {
	if p == "" {
		return false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	r, err := resolveExisting(filepath.Clean(p))
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(real, r)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	// .git in any component, in any case, as worktree.Capture refuses it:
	// a repository inside the worktree, or the worktree's own on a file
	// system that ignores case.
	for c := range strings.SplitSeq(rel, string(filepath.Separator)) {
		if strings.EqualFold(c, ".git") {
			return false
		}
	}
	return true
}

// resolveExisting resolves the symbolic links of p's longest existing
// prefix and appends the rest, so that a file about to be created is
// judged by where its directory really is.
func resolveExisting(p string) (string, error) {
	var rest []string
	for {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !os.IsNotExist(err) {
			return "", err
		}
		if _, lerr := os.Lstat(p); lerr == nil {
			// A dangling symbolic link: writing through it would create
			// its target, wherever that is.
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}
