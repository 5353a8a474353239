package llmtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/testkit/npmtest"
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
	dir, err := npmtest.CacheDir("optr-copilot")
	if err != nil {
		return "", "", "", err
	}
	if home = os.Getenv("OPTR_COPILOT_HOME"); home == "" {
		home = filepath.Join(dir, "home")
	}
	s := npmtest.Setup{Dir: dir}
	if cli = os.Getenv("OPTR_COPILOT_CLI"); cli == "" {
		arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
		if runtime.GOOS != "linux" || arch == "" {
			return "", "", fmt.Sprintf("npm has no Copilot CLI package for %s/%s here; set OPTR_COPILOT_CLI to run the real-CLI tests", runtime.GOOS, runtime.GOARCH), nil
		}
		pkg := npmtest.Package{Name: "@github/copilot-linux-" + arch, Version: llm.CopilotCLIVersion}
		rel := filepath.Join("node_modules", pkg.Name, "copilot")
		cli = filepath.Join(dir, rel)
		s.Packages, s.Files = []npmtest.Package{pkg}, []string{rel}
	}
	// The first start unpacks the CLI under HOME: once, before parallel
	// tests share that HOME.
	s.Then = func() error {
		if err := os.MkdirAll(home, 0o755); err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, cli, "--version")
		cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s --version: %w: %s", cli, err, npmtest.LastLines(out, 5))
		}
		return nil
	}
	skip, err = npmtest.Install(ctx, s)
	if skip != "" {
		skip += "; the real Copilot CLI tests skip (.ci/run installs it, or set OPTR_COPILOT_CLI)"
	}
	return cli, home, skip, err
}
