package scripts

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// releaseTree copies what release.sh reads into a scratch directory, with a
// CHANGELOG.md that has a section for 1.2.3, so a test never touches the
// repository and never needs a tag.
func releaseTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"cmd", "internal", "scripts", "host"} {
		if err := os.CopyFS(filepath.Join(dir, d), os.DirFS(filepath.Join("..", d))); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"go.mod", "go.sum", "action.yml", "LICENSE", "NOTICE"} {
		b, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	changelog := "# Changelog\n\n## [Unreleased]\n\n## [1.2.3] - 2026-11-23\n\n### Added\n- Host mode.\n\n## [1.2.2] - 2026-11-01\n\n- Older.\n"
	if err := os.WriteFile(filepath.Join(dir, "CHANGELOG.md"), []byte(changelog), 0o644); err != nil {
		t.Fatal(err)
	}
	// A release runs in a checkout of its tag (the SBOM reads the version
	// from it, the archives their timestamp).
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=optr", "-c", "user.email=optr@example.com", "commit", "-q", "-m", "release"},
		{"tag", "v1.2.3"},
	} {
		cmd := exec.CommandContext(t.Context(), "git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2026-11-23T00:00:00Z", "GIT_COMMITTER_DATE=2026-11-23T00:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args, err, out)
		}
	}
	return dir
}

type scriptResult struct {
	stdout, stderr string
	err            error
}

func releaseScript(t *testing.T, dir string, args ...string) scriptResult {
	t.Helper()
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "bash", append([]string{filepath.Join(dir, "scripts", "release.sh")}, args...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	return scriptResult{stdout.String(), stderr.String(), err}
}

// TestReleaseDryRun runs the whole release for the machine's own platform:
// the archive holds a binary that reports the tag as its version, SHA256SUMS
// matches the archive, the SBOM lists optr's dependencies, the notes are the
// CHANGELOG section, the pinned action files point at the release, and the
// git and gh commands are printed, not run.
func TestReleaseDryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds optr")
	}
	t.Parallel()
	dir := releaseTree(t)
	goos, goarch := runtime.GOOS, runtime.GOARCH
	res := releaseScript(t, dir, "--dry-run", "--out", "dist", "--targets", goos+"/"+goarch, "v1.2.3")
	if res.err != nil {
		t.Fatalf("release.sh: %v\n%s", res.err, res.stderr)
	}
	dist := filepath.Join(dir, "dist")
	asset := fmt.Sprintf("optr_1.2.3_%s_%s.tar.gz", goos, goarch)
	archive, err := os.ReadFile(filepath.Join(dist, asset))
	if err != nil {
		t.Fatal(err)
	}

	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sum(archive)+"  "+asset+"\n", string(sums)); diff != "" {
		t.Errorf("SHA256SUMS (-want +got):\n%s", diff)
	}

	exe := "optr"
	if goos == "windows" {
		exe = "optr.exe"
	}
	files := untar(t, archive)
	var names []string
	for _, f := range files {
		names = append(names, f.name)
		// the tagged commit's time, root: the same bytes on every build
		if f.mtime != 1795392000 || f.uid != 0 || f.gid != 0 {
			t.Errorf("%s in the archive: mtime %d uid %d gid %d, want 1795392000 (the commit time) 0 0", f.name, f.mtime, f.uid, f.gid)
		}
	}
	want := []string{exe, "LICENSE", "NOTICE"}
	if goos == "linux" {
		want = []string{exe, "optr-sandbox-launcher", "LICENSE", "NOTICE"}
		for _, f := range files {
			if f.name == "optr-sandbox-launcher" {
				checkLauncher(t, f)
			}
		}
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("archive contents (-want +got):\n%s", diff)
	}
	bin := filepath.Join(t.TempDir(), exe)
	if err := os.WriteFile(bin, files[0].body, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), bin, "version").Output()
	if err != nil {
		t.Fatalf("optr version: %v", err)
	}
	if diff := cmp.Diff("optr v1.2.3\n", string(out)); diff != "" {
		t.Errorf("optr version (-want +got):\n%s", diff)
	}

	var bom struct {
		BOMFormat  string `json:"bomFormat"`
		Components []struct {
			Name string `json:"name"`
		} `json:"components"`
	}
	b, err := os.ReadFile(filepath.Join(dist, "optr_1.2.3.cdx.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &bom); err != nil {
		t.Fatalf("SBOM: %v", err)
	}
	if bom.BOMFormat != "CycloneDX" || !strings.Contains(string(b), "github.com/google/go-github/v60") {
		t.Errorf("SBOM is %q with %d components, want CycloneDX listing go-github", bom.BOMFormat, len(bom.Components))
	}

	notes, err := os.ReadFile(filepath.Join(dist, "release-notes.md"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("\n### Added\n- Host mode.\n\n", string(notes)); diff != "" {
		t.Errorf("release notes (-want +got):\n%s", diff)
	}

	assertPinned(t, dir, filepath.Join(dist, "pinned"))

	for _, want := range []string{
		"would run: git tag -f -a v1.2.3",
		"would run: git tag -f -a v1 ",
		"would run: git push --force origin refs/tags/v1.2.3 refs/tags/v1\n",
		"would run: gh release create v1.2.3 --title optr\\ v1.2.3 --notes-file " + filepath.Join(dist, "release-notes.md") + " --verify-tag " + filepath.Join(dist, asset),
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, res.stdout)
		}
	}
}

// assertPinned: the pinned files differ from the originals in exactly the
// image line and the OPTR_VERSION line.
func assertPinned(t *testing.T, dir, pinned string) {
	t.Helper()
	for _, tt := range []struct{ file, from, to string }{
		{"action.yml", "  image: Dockerfile\n", "  image: docker://ghcr.io/optr-dev/optr:1.2.3\n"},
		{filepath.Join("host", "action.yml"), "        OPTR_VERSION: \"\"\n", "        OPTR_VERSION: v1.2.3\n"},
	} {
		orig, err := os.ReadFile(filepath.Join(dir, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(pinned, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(orig), tt.from) {
			t.Fatalf("%s lacks %q", tt.file, tt.from)
		}
		want := strings.Replace(string(orig), tt.from, tt.to, 1)
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Errorf("pinned %s (-want +got):\n%s", tt.file, diff)
		}
	}
}

type tarFile struct {
	name     string
	mtime    int64
	uid, gid int
	body     []byte
}

func untar(t *testing.T, archive []byte) []tarFile {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var files []tarFile
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, tarFile{h.Name, h.ModTime.Unix(), h.Uid, h.Gid, body})
	}
}

func TestReleaseImageTags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		version, want string
	}{
		{"v1.2.3", "ghcr.io/optr-dev/optr:1.2.3\nghcr.io/optr-dev/optr:v1\n"},
		{"v0.4.0", "ghcr.io/optr-dev/optr:0.4.0\nghcr.io/optr-dev/optr:v0\n"},
		// a prerelease never moves the major tag users follow
		{"v2.0.0-rc.1", "ghcr.io/optr-dev/optr:2.0.0-rc.1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			t.Parallel()
			res := releaseScript(t, "..", "--out", t.TempDir(), "tags", tt.version)
			if res.err != nil {
				t.Fatalf("release.sh tags: %v\n%s", res.err, res.stderr)
			}
			if diff := cmp.Diff(tt.want, res.stdout); diff != "" {
				t.Errorf("image tags (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReleaseRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no version", []string{"build"}, "VERSION is missing"},
		{"no v", []string{"tags", "1.2.3"}, `VERSION "1.2.3" is not a release tag`},
		{"two parts", []string{"tags", "v1.2"}, `VERSION "v1.2" is not a release tag`},
		{"leading zero", []string{"tags", "v1.02.3"}, `VERSION "v1.02.3" is not a release tag`},
		{"unknown flag", []string{"--push", "v1.2.3"}, "unknown flag --push"},
		{"no changelog section", []string{"build", "v9.8.7"}, `CHANGELOG.md has no "## [9.8.7]" section`},
		{"unknown target", []string{"--targets", "plan9/amd64", "build", "v1.2.3"}, `unknown target "plan9/amd64"`},
		{"publish before build", []string{"--dry-run", "publish", "v1.2.3"}, "holds no build: run the build step first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := ".."
			if tt.name == "unknown target" {
				dir = releaseTree(t)
			}
			res := releaseScript(t, dir, append([]string{"--out", t.TempDir()}, tt.args...)...)
			var exitErr *exec.ExitError
			if !errors.As(res.err, &exitErr) || exitErr.ExitCode() != 2 {
				t.Fatalf("release.sh %q: err %v, want exit status 2\n%s", tt.args, res.err, res.stderr)
			}
			if !strings.Contains(res.stderr, tt.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", res.stderr, tt.wantErr)
			}
		})
	}
}

// checkLauncher: the archive's sandbox launcher is cmd/optr-sandbox-launcher,
// built as optr is (static, -trimpath) and executable.
func checkLauncher(t *testing.T, f tarFile) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), f.name)
	if err := os.WriteFile(bin, f.body, 0o755); err != nil {
		t.Fatal(err)
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatalf("the archive's %s: %v", f.name, err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if info.Path != "github.com/optr-dev/optr/cmd/optr-sandbox-launcher" || settings["CGO_ENABLED"] != "0" || settings["-trimpath"] != "true" {
		t.Errorf("the archive's %s is %s built with %v, want cmd/optr-sandbox-launcher with CGO_ENABLED=0 and -trimpath", f.name, info.Path, settings)
	}
}
