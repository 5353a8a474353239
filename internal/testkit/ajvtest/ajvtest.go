package ajvtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/testkit/npmtest"
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
// installing them on first use (npmtest).
func setup(ctx context.Context) (modules, skip string, err error) {
	if _, err := exec.LookPath("node"); err != nil {
		return "", "there is no node on PATH to run Ajv: install Node.js to check the schema with Ajv", nil
	}
	root, err := npmtest.CacheDir("optr-ajv")
	if err != nil {
		return "", "", err
	}
	dir := filepath.Join(root, "ajv-"+AjvVersion+"-formats-"+FormatsVersion)
	skip, err = npmtest.Install(ctx, npmtest.Setup{Dir: dir, Packages: []npmtest.Package{{Name: "ajv", Version: AjvVersion}, {Name: "ajv-formats", Version: FormatsVersion}}})
	if skip != "" {
		skip += "; the Ajv checks skip"
	}
	return filepath.Join(dir, "node_modules"), skip, err
}
