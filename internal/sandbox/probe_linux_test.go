package sandbox

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/optr-dev/optr/internal/sandbox/launcher"
)

// fakeProbes replaces the probe launches for the test with launch.
func fakeProbes(t *testing.T, launch func(ctx context.Context, spec launcher.Spec, p launcher.Process) error) {
	t.Helper()
	old := probeLaunch
	probeLaunch = func(ctx context.Context, spec launcher.Spec, p launcher.Process) (launcher.Capabilities, error) {
		return launcher.Capabilities{ABI: 4}, launch(ctx, spec, p)
	}
	t.Cleanup(func() { probeLaunch = old })
}

// The base probe (the seccomp layer, Landlock's ABI, as root the
// unprivileged user) and the namespace's run at once: the base probe
// here ends only once the namespace's has started, which one after the
// other never comes to (synctest reports the deadlock).
func TestProbesRunAtOnce(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the probes run as the unprivileged user only as root")
	}
	synctest.Test(t, func(t *testing.T) {
		netStarted := make(chan struct{})
		var mu sync.Mutex
		var netUID []int
		fakeProbes(t, func(ctx context.Context, spec launcher.Spec, p launcher.Process) error {
			if spec.Net == "" {
				<-netStarted
				return nil
			}
			mu.Lock()
			netUID = append(netUID, p.UID)
			mu.Unlock()
			close(netStarted)
			return nil
		})
		p, err := probe(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !p.Unprivileged || !p.NetNS {
			t.Errorf("probe = %+v, want the user and the namespace", p)
		}
		if len(netUID) != 1 || netUID[0] != UnprivilegedUID {
			t.Errorf("the namespace was probed as %v, want once as uid %d", netUID, UnprivilegedUID)
		}
	})
}

// When the unprivileged user cannot be had, the namespace is probed again
// as optr's own user, which agents then run as, and that answer counts.
func TestNamespaceProbedAgainWithoutTheUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the user's probe runs only as root")
	}
	var mu sync.Mutex
	var netUID []int
	fakeProbes(t, func(ctx context.Context, spec launcher.Spec, p launcher.Process) error {
		if spec.Net == "" {
			return errors.New("setresuid refused")
		}
		mu.Lock()
		defer mu.Unlock()
		netUID = append(netUID, p.UID)
		if p.UID == UnprivilegedUID {
			return errors.New("no namespace as nobody")
		}
		return nil
	})
	p, err := probe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if p.Unprivileged || p.NoUser == "" {
		t.Errorf("probe = %+v, want the user refused, with the reason", p)
	}
	if !p.NetNS || p.NoNetNS != "" {
		t.Errorf("probe = %+v, want the namespace of optr's own user", p)
	}
	if len(netUID) != 2 || netUID[1] != -1 {
		t.Errorf("the namespace was probed as %v, want last as optr's own user (-1)", netUID)
	}
}

// A launcher optr will not use (another build) is no verdict on the
// kernel: the probe fails with it instead of giving a layer up.
func TestUnusableLauncherFailsTheProbe(t *testing.T) {
	unusable := &launcher.UnusableError{Launcher: "/bin/optr-sandbox-launcher", Optr: "/bin/optr", Why: "it is from another build"}
	fakeProbes(t, func(ctx context.Context, spec launcher.Spec, p launcher.Process) error { return unusable })
	p, err := probe(t.Context())
	if !errors.Is(err, unusable) {
		t.Fatalf("probe = %+v, %v; want the launcher's error", p, err)
	}
}
