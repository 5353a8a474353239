package llmtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/filelock"
)

// realCLI is the real Copilot CLI the tests drive, found or installed once
// for the package.
var realCLI struct {
	once       sync.Once
	path, home string
	// skip says why the tests cannot have the CLI (npm could not install it).
	skip string
	err  error
}

// CopilotCLI returns the real Copilot CLI and a HOME in which it has already
// unpacked itself (about 235 MB, on its first start): OPTR_COPILOT_CLI and
// OPTR_COPILOT_HOME when set (.ci/run sets both), else release
// llm.CopilotCLIVersion from npm, installed on first use into the user cache
// where .ci/run puts it too. The test is skipped only when npm cannot
// install it, with npm's reason.
func CopilotCLI(t testing.TB) (cli, home string) {
	t.Helper()
	realCLI.once.Do(func() {
		realCLI.path, realCLI.home, realCLI.skip, realCLI.err = setupCopilotCLI(t.Context())
	})
	if realCLI.err != nil {
		t.Fatalf("the Copilot CLI: %v", realCLI.err)
	}
	if realCLI.skip != "" {
		t.Skip(realCLI.skip)
	}
	return realCLI.path, realCLI.home
}

func setupCopilotCLI(ctx context.Context) (cli, home, skip string, err error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", "", "", err
	}
	dir := filepath.Join(cache, "optr-copilot")
	if home = os.Getenv("OPTR_COPILOT_HOME"); home == "" {
		home = filepath.Join(dir, "home")
	}
	// Test binaries of several packages may set up at once: one installs
	// and unpacks, the others wait for it.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", "", err
	}
	unlock, err := filelock.Lock(filepath.Join(dir, ".lock"))
	if err != nil {
		return "", "", "", err
	}
	defer unlock()
	if cli = os.Getenv("OPTR_COPILOT_CLI"); cli == "" {
		arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
		if runtime.GOOS != "linux" || arch == "" {
			return "", "", fmt.Sprintf("npm has no Copilot CLI package for %s/%s here; set OPTR_COPILOT_CLI to run the real-CLI tests", runtime.GOOS, runtime.GOARCH), nil
		}
		pkg := "@github/copilot-linux-" + arch
		cli = filepath.Join(dir, "node_modules", pkg, "copilot")
		if !pinnedCLI(filepath.Dir(cli)) {
			spec := pkg + "@" + llm.CopilotCLIVersion
			out, err := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", dir, spec).CombinedOutput()
			if err != nil || !pinnedCLI(filepath.Dir(cli)) {
				return "", "", fmt.Sprintf("npm could not install %s (no npm, or the registry is unreachable), so the real Copilot CLI tests skip; .ci/run installs it, or set OPTR_COPILOT_CLI: %v: %s", spec, err, lastLines(out, 5)), nil
			}
		}
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return "", "", "", err
	}
	// The first start unpacks the CLI under HOME: once, before parallel
	// tests share that HOME.
	cmd := exec.CommandContext(ctx, cli, "--version")
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", "", "", fmt.Errorf("%s --version: %w: %s", cli, err, lastLines(out, 5))
	}
	return cli, home, "", nil
}

// pinnedCLI reports whether npm package directory dir holds release
// llm.CopilotCLIVersion with its binary.
func pinnedCLI(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	return err == nil && strings.Contains(string(b), `"version": "`+llm.CopilotCLIVersion+`"`) && fileExists(filepath.Join(dir, "copilot"))
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
