package scripts

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// releasePath is where the stand-in server keeps releases: not the root, so
// a script that builds a wrong absolute URL gets a 404.
const releasePath = "/optr-dev/optr/releases/download"

// fakeOptr is the "binary" in the stand-in release: it records how it was
// run, so a test sees the arguments and the inputs that reached optr.
const fakeOptr = `#!/bin/sh
{
  echo "args: $*"
  echo "command: $(printenv INPUT_COMMAND)"
  echo "token: $(printenv INPUT_GITHUB_TOKEN)"
} >"$OPTR_FAKE_LOG"
exit "${OPTR_FAKE_EXIT:-0}"
`

// release is a stand-in for a GitHub release's download URLs that counts
// what it serves.
type release struct {
	mu    sync.Mutex
	files map[string][]byte // path below releasePath → body
	hits  map[string]int
}

func (r *release) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name, ok := strings.CutPrefix(req.URL.Path, releasePath+"/")
	body, found := r.files[name]
	if !ok || !found || req.Method != http.MethodGet {
		http.NotFound(w, req)
		return
	}
	r.hits[name]++
	w.Write(body)
}

func (r *release) requests() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.hits)
}

// targz packs executable files named names, each holding content, as
// release.sh does.
func targz(t testing.TB, content string, names ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range names {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(content))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// newRelease serves release v1.2.3 with one archive per asset name given,
// each holding the fake optr under exe (and, for linux, beside it as
// optr-sandbox-launcher), and a SHA256SUMS listing them.
func newRelease(t *testing.T, assets map[string]string) (*release, string) {
	t.Helper()
	r := &release{files: map[string][]byte{}, hits: map[string]int{}}
	var sums strings.Builder
	for asset, exe := range assets {
		names := []string{exe}
		if strings.Contains(asset, "_linux_") {
			names = append(names, launcher)
		}
		b := targz(t, fakeOptr, names...)
		r.files["v1.2.3/"+asset] = b
		fmt.Fprintf(&sums, "%s  %s\n", sum(b), asset)
	}
	r.files["v1.2.3/SHA256SUMS"] = []byte(sums.String())
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, srv.URL + releasePath
}

type runner struct {
	os, arch, version, cache, url string
	exit                          string // the fake optr's exit status
	binary                        string // OPTR_BINARY, a locally built optr
}

type installResult struct {
	err    error
	stderr string
	log    string // what the fake optr recorded; empty when it never ran
}

// install runs host/install.sh the way host/action.yml does.
func install(t *testing.T, r runner) installResult {
	t.Helper()
	tmp := t.TempDir()
	logFile := filepath.Join(tmp, "optr.log")
	cmd := exec.CommandContext(t.Context(), "bash", filepath.Join("..", "host", "install.sh"))
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + tmp,
		"RUNNER_OS=" + r.os,
		"RUNNER_ARCH=" + r.arch,
		"RUNNER_TOOL_CACHE=" + r.cache,
		"RUNNER_TEMP=" + tmp,
		"OPTR_VERSION=" + r.version,
		"OPTR_RELEASE_URL=" + r.url,
		"OPTR_FAKE_LOG=" + logFile,
		"INPUT_COMMAND=auto",
		"INPUT_GITHUB_TOKEN=ghs_test",
		"OPTR_FAKE_EXIT=" + r.exit,
	}
	if r.binary != "" {
		cmd.Env = append(cmd.Env, "OPTR_BINARY="+r.binary)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	got := installResult{err: err, stderr: stderr.String()}
	if b, rerr := os.ReadFile(logFile); rerr == nil {
		got.log = string(b)
	}
	return got
}

// launcher is optr's sandbox launcher, in the linux archives beside optr.
const launcher = "optr-sandbox-launcher"

const ranOptr = "args: action\ncommand: auto\ntoken: ghs_test\n"

func TestInstallDownloadsVerifiesCachesAndRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		os, arch, asset, exe, cacheArch string
	}{
		{"Linux", "X64", "optr_1.2.3_linux_amd64.tar.gz", "optr", "amd64"},
		{"Linux", "ARM64", "optr_1.2.3_linux_arm64.tar.gz", "optr", "arm64"},
		{"macOS", "ARM64", "optr_1.2.3_darwin_arm64.tar.gz", "optr", "arm64"},
		{"Windows", "X64", "optr_1.2.3_windows_amd64.tar.gz", "optr.exe", "amd64"},
	}
	for _, tt := range tests {
		t.Run(tt.os+"/"+tt.arch, func(t *testing.T) {
			t.Parallel()
			rel, url := newRelease(t, map[string]string{tt.asset: tt.exe})
			r := runner{os: tt.os, arch: tt.arch, version: "v1.2.3", cache: t.TempDir(), url: url}

			first := install(t, r)
			if first.err != nil {
				t.Fatalf("first install: %v\n%s", first.err, first.stderr)
			}
			if diff := cmp.Diff(ranOptr, first.log); diff != "" {
				t.Errorf("first run of optr (-want +got):\n%s", diff)
			}
			bin := filepath.Join(r.cache, "optr", "1.2.3", tt.cacheArch, tt.exe)
			if _, err := os.Stat(bin); err != nil {
				t.Errorf("tool cache: %v", err)
			}
			// On Linux optr's sandbox launcher lies beside it, where optr
			// looks for it.
			fi, err := os.Stat(filepath.Join(filepath.Dir(bin), launcher))
			if tt.os == "Linux" && (err != nil || fi.Mode().Perm()&0o111 == 0) {
				t.Errorf("tool cache: no executable %s beside optr: %v", launcher, err)
			}
			if tt.os != "Linux" && err == nil {
				t.Errorf("tool cache: %s beside optr on %s", launcher, tt.os)
			}
			if _, err := os.Stat(filepath.Join(r.cache, "optr", "1.2.3", tt.cacheArch+".complete")); err != nil {
				t.Errorf("tool cache marker: %v", err)
			}

			// The second job on this runner takes the cached binary.
			second := install(t, r)
			if second.err != nil {
				t.Fatalf("second install: %v\n%s", second.err, second.stderr)
			}
			if diff := cmp.Diff(ranOptr, second.log); diff != "" {
				t.Errorf("second run of optr (-want +got):\n%s", diff)
			}
			want := map[string]int{"v1.2.3/SHA256SUMS": 1, "v1.2.3/" + tt.asset: 1}
			if diff := cmp.Diff(want, rel.requests()); diff != "" {
				t.Errorf("downloads over two jobs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInstallExitStatusIsOptrs: the step fails exactly when optr fails.
func TestInstallExitStatusIsOptrs(t *testing.T) {
	t.Parallel()
	_, url := newRelease(t, map[string]string{"optr_1.2.3_linux_amd64.tar.gz": "optr"})
	r := runner{os: "Linux", arch: "X64", version: "v1.2.3", cache: t.TempDir(), url: url, exit: "3"}
	got := install(t, r)
	var exitErr *exec.ExitError
	if !errors.As(got.err, &exitErr) || exitErr.ExitCode() != 3 {
		t.Fatalf("install error = %v, want optr's exit status 3\n%s", got.err, got.stderr)
	}
	if diff := cmp.Diff(ranOptr, got.log); diff != "" {
		t.Errorf("run of optr (-want +got):\n%s", diff)
	}
}

func TestInstallRefuses(t *testing.T) {
	t.Parallel()
	good := "optr_1.2.3_linux_amd64.tar.gz"
	tests := []struct {
		name    string
		runner  runner
		tamper  func(t *testing.T, r *release)
		wantErr string
	}{
		{
			name: "checksum mismatch",
			tamper: func(t *testing.T, r *release) {
				r.files["v1.2.3/"+good] = targz(t, "#!/bin/sh\necho evil\n", "optr", launcher)
			},
			wantErr: "checksum mismatch for " + good,
		},
		{
			name: "linux archive without the sandbox launcher",
			tamper: func(t *testing.T, r *release) {
				b := targz(t, fakeOptr, "optr")
				r.files["v1.2.3/"+good] = b
				r.files["v1.2.3/SHA256SUMS"] = []byte(sum(b) + "  " + good + "\n")
			},
			wantErr: good + " holds no optr optr-sandbox-launcher",
		},
		{
			name: "asset missing from SHA256SUMS",
			tamper: func(_ *testing.T, r *release) {
				r.files["v1.2.3/SHA256SUMS"] = []byte(sum([]byte("x")) + "  optr_1.2.3_darwin_amd64.tar.gz\n")
			},
			wantErr: "SHA256SUMS of v1.2.3 lists no " + good,
		},
		{
			name:    "no such release",
			runner:  runner{version: "v9.9.9"},
			wantErr: "/v9.9.9/SHA256SUMS failed: is v9.9.9 a published optr release",
		},
		{
			name:    "unreleased ref",
			runner:  runner{version: "-"},
			wantErr: "names no optr release: use a released ref such as optr-dev/optr/host@v1 (releases pin the version), or set OPTR_BINARY",
		},
		{
			name:    "OPTR_BINARY not an executable",
			runner:  runner{binary: "no/such/optr"},
			wantErr: `OPTR_BINARY is "no/such/optr", which is not an executable file`,
		},
		{
			name:    "not a tag",
			runner:  runner{version: "latest"},
			wantErr: `OPTR_VERSION is "latest", which is not a release tag`,
		},
		{
			name:    "unsupported OS",
			runner:  runner{os: "FreeBSD"},
			wantErr: `unsupported RUNNER_OS "FreeBSD"`,
		},
		{
			name:    "unsupported arch",
			runner:  runner{arch: "ARM"},
			wantErr: `unsupported RUNNER_ARCH "ARM"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rel, url := newRelease(t, map[string]string{good: "optr"})
			if tt.tamper != nil {
				rel.mu.Lock()
				tt.tamper(t, rel)
				rel.mu.Unlock()
			}
			r := runner{os: "Linux", arch: "X64", version: "v1.2.3", cache: t.TempDir(), url: url}
			if tt.runner.os != "" {
				r.os = tt.runner.os
			}
			if tt.runner.arch != "" {
				r.arch = tt.runner.arch
			}
			r.binary = tt.runner.binary
			switch tt.runner.version {
			case "":
			case "-":
				r.version = ""
			default:
				r.version = tt.runner.version
			}
			got := install(t, r)
			if got.err == nil {
				t.Fatalf("install succeeded, want an error containing %q", tt.wantErr)
			}
			if !strings.Contains(got.stderr, tt.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", got.stderr, tt.wantErr)
			}
			if got.log != "" {
				t.Errorf("optr ran after a failed install: %q", got.log)
			}
			entries, err := os.ReadDir(r.cache)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 0 {
				t.Errorf("the tool cache holds %d entries after a failed install, want none", len(entries))
			}
		})
	}
}

// OPTR_BINARY points host mode at an optr built locally (act, a
// self-hosted runner, an unreleased commit): it runs that binary, downloads
// nothing and caches nothing, also on a ref that names no release (issue
// 22 item 15: the advice "set OPTR_VERSION" could not be followed, since
// the composite step's own env wins).
func TestInstallRunsALocalBinary(t *testing.T) {
	t.Parallel()
	rel, url := newRelease(t, map[string]string{"optr_1.2.3_linux_amd64.tar.gz": "optr"})
	bin := filepath.Join(t.TempDir(), "optr")
	if err := os.WriteFile(bin, []byte(fakeOptr), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{"", "v1.2.3"} {
		r := runner{os: "Linux", arch: "X64", version: version, cache: t.TempDir(), url: url, binary: bin}
		got := install(t, r)
		if got.err != nil {
			t.Fatalf("OPTR_VERSION %q: %v\n%s", version, got.err, got.stderr)
		}
		if diff := cmp.Diff(ranOptr, got.log); diff != "" {
			t.Errorf("OPTR_VERSION %q: run of optr (-want +got):\n%s", version, diff)
		}
		if entries, _ := os.ReadDir(r.cache); len(entries) != 0 {
			t.Errorf("OPTR_VERSION %q: the tool cache holds %d entries, want none", version, len(entries))
		}
	}
	if n := len(rel.requests()); n != 0 {
		t.Errorf("%d downloads with OPTR_BINARY set, want none", n)
	}
}
