package child

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The launcher runs from this package's init, before the packages it
// does not import are initialised: every agent start pays for the inits
// of what it imports. None of the network, TLS, HTTP or YAML stacks may
// come in.
func TestImportsStaySmall(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, heavy := range []string{"net", "net/http", "crypto/tls", "os/exec", "regexp", "path/filepath"} {
		if slices.Contains(deps, heavy) {
			t.Errorf("package child depends on %s: every agent start would initialise it", heavy)
		}
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "github.com/optr-dev/optr/") && d != "github.com/optr-dev/optr/internal/sandbox/launcher/child" {
			t.Errorf("package child depends on %s", d)
		}
	}
}
