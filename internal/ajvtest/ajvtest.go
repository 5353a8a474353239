package ajvtest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The releases of Ajv and ajv-formats the checks install.
const (
	AjvVersion     = "8.17.1"
	FormatsVersion = "3.0.1"
)

// kit is the installed node_modules directory, set up once for the test
// binary.
var kit struct {
	once    sync.Once
	modules string
	// skip says why the checks cannot run here.
	skip string
	err  error
}

// compile is the Node program that compiles a draft 2020-12 schema (its
// file the second argument) with Ajv in strict mode and ajv-formats, from
// the node_modules directory given first. It prints every strict-mode
// complaint, not only the first, and exits 1 when there was one.
const compile = `
const path = require('path');
const [modules, file] = process.argv.slice(2);
const Ajv2020 = require(path.join(modules, 'ajv/dist/2020')).default;
const addFormats = require(path.join(modules, 'ajv-formats')).default;
const problems = [];
const logger = { log() {}, warn: (m) => problems.push(String(m)), error: (m) => problems.push(String(m)) };
const schema = JSON.parse(require('fs').readFileSync(file, 'utf8'));
try {
  const ajv = new Ajv2020({ strict: 'log', allErrors: true, logger });
  addFormats(ajv);
  ajv.compile(schema);
} catch (e) {
  problems.push(e.message);
}
if (problems.length) { console.log(problems.join('\n')); process.exit(1); }
`

// CompileStrict compiles schema (a draft 2020-12 JSON Schema) with Ajv in
// strict mode (strictTypes, strictTuples, strictRequired, …) and fails the
// test with every complaint Ajv has.
func CompileStrict(t testing.TB, schema []byte) {
	t.Helper()
	kit.once.Do(func() { kit.modules, kit.skip, kit.err = setup(t.Context()) })
	if kit.err != nil {
		t.Fatalf("Ajv: %v", kit.err)
	}
	if kit.skip != "" {
		t.Skip(kit.skip)
	}
	dir := t.TempDir()
	file, prog := filepath.Join(dir, "schema.json"), filepath.Join(dir, "compile.js")
	if err := os.WriteFile(file, schema, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prog, []byte(compile), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), "node", prog, kit.modules, file).CombinedOutput()
	if err != nil {
		t.Fatalf("Ajv's strict compile refuses the schema (%v):\n%s", err, out)
	}
}

// setup returns the node_modules directory holding the pinned releases,
// installing them on first use: into a directory of its own, renamed into
// place when complete, so that test binaries setting up at once never see
// half an installation.
func setup(ctx context.Context) (modules, skip string, err error) {
	if _, err := exec.LookPath("node"); err != nil {
		return "", "there is no node on PATH to run Ajv: install Node.js to check the schema with Ajv", nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", "", err
	}
	root := filepath.Join(cache, "optr-ajv")
	dir := filepath.Join(root, "ajv-"+AjvVersion+"-formats-"+FormatsVersion)
	modules = filepath.Join(dir, "node_modules")
	if pinned(modules) {
		return modules, "", nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", "", err
	}
	tmp, err := os.MkdirTemp(root, ".install-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	specs := []string{"ajv@" + AjvVersion, "ajv-formats@" + FormatsVersion}
	args := append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--prefix", tmp}, specs...)
	out, err := exec.CommandContext(ctx, "npm", args...).CombinedOutput()
	if err != nil || !pinned(filepath.Join(tmp, "node_modules")) {
		return "", fmt.Sprintf("npm could not install %s (no npm, or the registry is unreachable), so the Ajv checks skip: %v: %s",
			strings.Join(specs, " "), err, lastLines(out, 5)), nil
	}
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, fs.ErrExist) && !pinned(modules) {
		return "", "", err
	}
	return modules, "", nil
}

// pinned reports whether modules holds the pinned releases.
func pinned(modules string) bool {
	has := func(pkg, version string) bool {
		b, err := os.ReadFile(filepath.Join(modules, pkg, "package.json"))
		return err == nil && strings.Contains(string(b), `"version": "`+version+`"`)
	}
	return has("ajv", AjvVersion) && has("ajv-formats", FormatsVersion)
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
