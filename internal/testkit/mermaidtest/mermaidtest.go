package mermaidtest

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/testkit/npmtest"
)

// Version is the Mermaid CLI release the checks install.
const Version = "12.2.0"

// jsdomVersion is the jsdom release Mermaid parses under in Node: Mermaid
// sanitises labels with DOMPurify, which needs a DOM.
const jsdomVersion = "29.1.1"

// parseScript parses each diagram of a JSON array with Mermaid's own
// mermaid.parse in Node, and prints each one's error.
//
//go:embed parse.mjs
var parseScript []byte

// cli is the Mermaid CLI and the browser it renders in, set up once for
// the test binary.
var cli struct {
	once          sync.Once
	mmdc, browser string
	// dir holds the installed packages and the parse script.
	dir string
	// skip says why the checks cannot run here.
	skip string
	err  error
}

// browsers are the names a Chromium goes by on PATH.
var browsers = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Check parses diagrams (Mermaid sources, without code fences) with
// Mermaid's own parser in Node, then renders them with the Mermaid CLI
// where a Chromium is at hand (on PATH, or $OPTR_CHROMIUM), and fails the
// test with Mermaid's error when one does not parse or render. Both come
// from npm, installed on first use into the user cache (the CLI's browser
// download is skipped), so a machine with only Node and the npm registry
// runs the parse. The test is skipped only when npm cannot install them,
// with the reason.
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
	if msg, err := parse(t.Context(), dir, diagrams); err != nil {
		t.Fatalf("Mermaid cannot parse the diagrams: %v\n%s", err, firstLines(msg, 24))
		return
	}
	if cli.browser == "" {
		return // parsed; rendering needs a browser
	}
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

// parse runs Mermaid's parser over diagrams in Node, in dir.
func parse(ctx context.Context, dir string, diagrams []string) ([]byte, error) {
	in := filepath.Join(dir, "diagrams.json")
	data, err := json.Marshal(diagrams)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		return nil, err
	}
	// The script sits beside the installed modules, so Node finds them.
	cmd := exec.CommandContext(ctx, "node", filepath.Join(cli.dir, "parse.mjs"), in)
	return cmd.CombinedOutput()
}

func setup(ctx context.Context) (mmdc, browser, skip string, err error) {
	browser = os.Getenv("OPTR_CHROMIUM")
	for _, name := range browsers {
		if browser != "" {
			break
		}
		browser, _ = exec.LookPath(name)
	}
	dir, err := npmtest.CacheDir("optr-mermaid")
	if err != nil {
		return "", "", "", err
	}
	cli.dir = dir
	skip, err = npmtest.Install(ctx, npmtest.Setup{
		Dir:      dir,
		Packages: []npmtest.Package{{Name: "@mermaid-js/mermaid-cli", Version: Version}, {Name: "jsdom", Version: jsdomVersion}},
		Env:      []string{"PUPPETEER_SKIP_DOWNLOAD=1"},
		Then:     func() error { return os.WriteFile(filepath.Join(dir, "parse.mjs"), parseScript, 0o644) },
	})
	if skip != "" {
		skip += "; the Mermaid checks skip"
	}
	return filepath.Join(dir, "node_modules", ".bin", "mmdc"), browser, skip, err
}

func firstLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[:min(len(lines), n)], "\n")
}
