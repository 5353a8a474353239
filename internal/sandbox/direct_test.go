package sandbox

import (
	"bufio"
	"errors"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/sandbox/proxy"
)

// Where there is no launcher (outside Linux; the platform is forced
// here: no layer and no launcher), a process starts with the built environment and its proxy is served, and nothing
// more: the table of architecture §4.14 for macOS and Windows.
func TestDirectStartBuildsTheEnvironmentAndServesTheProxy(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	why := "no launcher here"
	r := New(Settings{
		Mode: "auto", Environ: []string{"PATH=/usr/bin:/bin", "GITHUB_TOKEN=t"},
		Unavailable: map[string]string{"fs": why, "net": why, "user": why},
	})
	if err := r.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	r.direct = true
	l, err := r.Command(Process{Name: "a", Env: []string{"OPTR_AGENT=a"}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), sh, "-c", `env; echo --; cat >/dev/null`)
	cmd.Env = l.Env()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context(), cmd); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && sc.Text() != "--" {
		k, v, _ := strings.Cut(sc.Text(), "=")
		env[k] = v
	}
	if _, ok := env["GITHUB_TOKEN"]; ok {
		t.Error("the process was given GITHUB_TOKEN")
	}
	if env["OPTR_AGENT"] != "a" || env["HOME"] == "" {
		t.Errorf("the process's environment is not the built one: %v", env)
	}
	// The proxy of the process is served while it runs: a host outside
	// sandbox.network is refused and recorded.
	pu, err := url.Parse(env["HTTPS_PROXY"])
	if err != nil || pu.Host == "" {
		t.Fatalf("HTTPS_PROXY = %q", env["HTTPS_PROXY"])
	}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
	resp, err := client.Get("http://example.invalid/")
	if err != nil {
		t.Fatalf("the proxy is not served: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a refused host answered %d, want 403", resp.StatusCode)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	hosts, refused := l.Finish()
	var re *proxy.RefusedError
	if !errors.As(refused, &re) || len(hosts) != 1 || hosts[0].Host != "example.invalid" || hosts[0].Allowed {
		t.Errorf("Finish = %v, %v; want example.invalid refused", hosts, refused)
	}
}
