package mermaidtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/filelock"
)

// Version is the Mermaid CLI release the checks install.
const Version = "12.2.0"

// cli is the Mermaid CLI and the browser it renders in, set up once for
// the test binary.
var cli struct {
	once          sync.Once
	mmdc, browser string
	// skip says why the checks cannot run here.
	skip string
	err  error
}

// browsers are the names a Chromium goes by on PATH.
var browsers = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Check renders diagrams (Mermaid sources, without code fences) with the
// Mermaid CLI and fails the test with Mermaid's error when one does not
// parse. The CLI is installed from npm on first use into the user cache
// (its browser download is skipped: it renders in the Chromium on PATH, or
// $OPTR_CHROMIUM). The test is skipped when npm cannot install it, or
// there is no Chromium (apt-get install chromium), with the reason.
func Check(t testing.TB, diagrams ...string) {
	t.Helper()
	cli.once.Do(func() { cli.mmdc, cli.browser, cli.skip, cli.err = setup(t.Context()) })
	if cli.err != nil {
		t.Fatalf("the Mermaid CLI: %v", cli.err)
	}
	if cli.skip != "" {
		t.Skip(cli.skip)
	}
	dir := t.TempDir()
	var doc strings.Builder
	for _, d := range diagrams {
		doc.WriteString("```mermaid\n" + strings.TrimSuffix(d, "\n") + "\n```\n\n")
	}
	in, out, cfg := filepath.Join(dir, "in.md"), filepath.Join(dir, "out.md"), filepath.Join(dir, "puppeteer.json")
	// As root (CI containers) Chromium runs only without its sandbox.
	config := fmt.Sprintf(`{"executablePath": %q, "args": ["--no-sandbox", "--disable-gpu"]}`, cli.browser)
	if err := os.WriteFile(in, []byte(doc.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), cli.mmdc, "--quiet", "-p", cfg, "-i", in, "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("Mermaid cannot render the diagrams: %v\n%s\n--- diagrams:\n%s", err, firstLines(msg, 12), doc.String())
	}
}

func setup(ctx context.Context) (mmdc, browser, skip string, err error) {
	browser = os.Getenv("OPTR_CHROMIUM")
	for _, name := range browsers {
		if browser != "" {
			break
		}
		browser, _ = exec.LookPath(name)
	}
	if browser == "" {
		return "", "", "there is no Chromium for the Mermaid CLI to render in: install one (apt-get install chromium) or set OPTR_CHROMIUM", nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", "", "", err
	}
	dir := filepath.Join(cache, "optr-mermaid")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", "", err
	}
	// Test binaries of several packages may set up at once: one installs,
	// the others wait for it.
	unlock, err := filelock.Lock(filepath.Join(dir, ".lock"))
	if err != nil {
		return "", "", "", err
	}
	defer unlock()
	mmdc = filepath.Join(dir, "node_modules", ".bin", "mmdc")
	if !pinned(dir) {
		spec := "@mermaid-js/mermaid-cli@" + Version
		cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", dir, spec)
		cmd.Env = append(os.Environ(), "PUPPETEER_SKIP_DOWNLOAD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !pinned(dir) {
			return "", "", fmt.Sprintf("npm could not install %s (no npm, or the registry is unreachable), so the Mermaid checks skip: %v: %s", spec, err, firstLines(out, 5)), nil
		}
	}
	return mmdc, browser, "", nil
}

// pinned reports whether dir holds release Version of the CLI.
func pinned(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@mermaid-js", "mermaid-cli", "package.json"))
	return err == nil && strings.Contains(string(b), `"version": "`+Version+`"`)
}

func firstLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[:min(len(lines), n)], "\n")
}
