package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// overlay applies a worked example of CONTRIBUTING.md to the repository
// in a go build overlay: files replaced by edited or new content, the tree
// itself untouched.
type overlay struct {
	t *testing.T
	// abs is the repository's root; dir holds the overlay's files.
	abs, dir string
	files    map[string]string
}

// newOverlay starts an overlay of the repository, or skips t where one
// cannot be built and tested (-short, no go command).
func newOverlay(t *testing.T) *overlay {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and tests packages in an overlay; not in -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	return &overlay{t: t, abs: abs, dir: t.TempDir(), files: map[string]string{}}
}

// put replaces (or adds) the file rel with content.
func (o *overlay) put(rel, content string) {
	o.t.Helper()
	tmp := filepath.Join(o.dir, strings.ReplaceAll(rel, "/", "_"))
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		o.t.Fatal(err)
	}
	o.files[filepath.Join(o.abs, filepath.FromSlash(rel))] = tmp
}

// edited is rel with each edit's text put before its anchor (edit[0]).
func (o *overlay) edited(rel string, edits ...[2]string) string {
	o.t.Helper()
	text := readRoot(o.t, rel)
	for _, e := range edits {
		if !strings.Contains(text, e[0]) {
			o.t.Fatalf("%s no longer holds %q, where the worked example goes; update the test", rel, e[0])
		}
		text = strings.Replace(text, e[0], e[1]+e[0], 1)
	}
	return text
}

// generate runs go generate ./internal/config over the overlay and puts
// schema.json as the registries now write it, which must name each of
// want.
func (o *overlay) generate(want ...string) {
	o.t.Helper()
	generated := filepath.Join(o.dir, "schema.json")
	o.goCmd(filepath.Join(o.abs, "internal", "config"), "run", "gen_schema.go", "schema.in.json", generated)
	schema, err := os.ReadFile(generated)
	if err != nil {
		o.t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(string(schema), `"`+w+`"`) {
			o.t.Fatalf("the regenerated schema does not name %s", w)
		}
	}
	o.put("internal/config/schema.json", string(schema))
}

// vetAndTest vets pkgs and runs the tests of pkgs that run matches, over
// the overlay.
func (o *overlay) vetAndTest(run string, pkgs ...string) {
	o.t.Helper()
	o.goCmd(o.abs, append([]string{"vet"}, pkgs...)...)
	o.goCmd(o.abs, append([]string{"test", "-count=1", "-run", run}, pkgs...)...)
}

// goCmd runs go with args in dir, over the overlay as it stands.
func (o *overlay) goCmd(dir string, args ...string) {
	o.t.Helper()
	ov := writeOverlay(o.t, o.dir, o.files)
	goCmd(o.t, dir, append([]string{args[0], "-overlay=" + ov}, args[1:]...)...)
}
