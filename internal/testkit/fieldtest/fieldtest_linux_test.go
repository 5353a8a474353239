package fieldtest

import (
	"os/exec"
	"strings"
	"testing"
)

// run runs script under e and returns its output.
func run(t *testing.T, e Env, script string) string {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = []string{"PATH=/usr/bin:/bin:/usr/sbin:/sbin"}
	e.Wrap(t, cmd)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// Under Docker's profile and capabilities a root program may not create
// a user or network namespace and holds only Docker's capabilities;
// unrestricted, the same root program may, so the test can fail.
func TestDocker(t *testing.T) {
	script := `unshare -U true 2>/dev/null && echo userns; unshare -n true 2>/dev/null && echo netns; grep CapBnd /proc/self/status; id -u`
	got := run(t, Env{Docker: true}, script)
	if strings.Contains(got, "userns") || strings.Contains(got, "netns") {
		t.Errorf("under Docker's profile a namespace was created:\n%s", got)
	}
	// CHOWN … AUDIT_WRITE: Docker's fourteen.
	if !strings.Contains(got, "CapBnd:\t00000000a80425fb") || !strings.HasSuffix(got, "0\n") {
		t.Errorf("want Docker's capabilities, as root:\n%s", got)
	}
	free := run(t, Env{}, script)
	if !strings.Contains(free, "userns") || !strings.Contains(free, "netns") {
		t.Errorf("unrestricted, root should create namespaces here: the test proves nothing:\n%s", free)
	}
}

// A non-root user with supplementary groups and user namespaces refused.
func TestRunner(t *testing.T) {
	got := run(t, Env{UID: 65534, GID: 65534, Groups: []int{65533}, NoUserNS: true},
		`id -u; id -G; unshare -U true 2>/dev/null && echo userns; echo done`)
	if got != "65534\n65534 65533\ndone\n" {
		t.Errorf("got %q", got)
	}
	// Unrestricted, this kernel gives an unprivileged user a namespace:
	// the refusal above is the filter's.
	if got := run(t, Env{UID: 65534, GID: 65534}, `unshare -U true && echo userns`); got != "userns\n" {
		t.Errorf("as nobody without the filter: %q, want a user namespace: the test proves nothing", got)
	}
}
