package sandbox

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// What a run enforces on each platform the field has (architecture
// §4.14), and what strict mode refuses there.
func TestDecide(t *testing.T) {
	const noNS = "the kernel refused a user and network namespace"
	for _, tc := range []struct {
		name    string
		plat    Platform
		want    Layers
		missing []string // the layers strict refuses
		notes   []string // words the notes must hold
	}{{
		name: "root with namespaces (CI's machine)",
		plat: Platform{ABI: 7, NetNS: true, Seccomp: true, Root: true, Unprivileged: true},
		want: Layers{FS: "landlock-v7", Net: "netns", Scope: "landlock+seccomp", User: "unprivileged", Groups: "dropped"},
	}, {
		name:  "container action (Docker's default seccomp profile)",
		plat:  Platform{ABI: 7, NoNetNS: noNS, Seccomp: true, Root: true, Unprivileged: true},
		want:  Layers{FS: "landlock-v7", Net: "seccomp", Scope: "landlock+seccomp", User: "unprivileged", Groups: "dropped"},
		notes: []string{"net held by the seccomp layer"},
	}, {
		name:    "hosted runner, ubuntu-24.04, sudo refused (Landlock ABI 4, no namespace, docker group)",
		plat:    Platform{ABI: 4, NoNetNS: noNS, Seccomp: true, Groups: []int{118, 1001}, NoSudo: "sudo: a password is required"},
		want:    Layers{FS: "landlock-v4", Net: "seccomp", Scope: "seccomp", User: "same", Groups: "kept"},
		missing: []string{"groups"},
		notes:   []string{"supplementary groups (118, 1001)", "sudo: a password is required", "the Docker socket) are refused"},
	}, {
		// Root's launcher (sudo) makes the network namespace itself.
		name: "hosted runner, ubuntu-24.04, with sudo",
		plat: Platform{ABI: 4, NetNS: true, Seccomp: true, Groups: []int{118, 1001}, Sudo: "/usr/bin/sudo"},
		want: Layers{FS: "landlock-v4", Net: "netns", Scope: "seccomp", User: "same", Groups: "dropped"},
	}, {
		name:    "Landlock ABI 4 alone",
		plat:    Platform{ABI: 4, NoNetNS: noNS, NoSeccomp: "seccomp refused"},
		want:    Layers{FS: "landlock-v4", Net: "landlock-tcp", Scope: "none", User: "same", Groups: "none"},
		missing: []string{"net", "scope"},
		notes:   []string{"not in any agent's network record", "seccomp refused"},
	}, {
		name:    "a namespace without the seccomp layer, ABI 6",
		plat:    Platform{ABI: 6, NetNS: true, NoSeccomp: "Linux 4.19"},
		want:    Layers{FS: "landlock-v6", Net: "netns", Scope: "none", User: "same", Groups: "none"},
		missing: []string{"scope"},
		notes:   []string{"Unix sockets by path"},
	}, {
		name: "a namespace and Landlock ABI 9, no seccomp layer",
		plat: Platform{ABI: 9, NetNS: true, NoSeccomp: "refused"},
		want: Layers{FS: "landlock-v9", Net: "netns", Scope: "landlock", User: "same", Groups: "none"},
	}, {
		name:    "nothing (macOS, Windows, an old kernel)",
		plat:    Platform{NoLandlock: "no Landlock", NoNetNS: "no namespaces", NoSeccomp: "no seccomp"},
		want:    Layers{FS: "none", Net: "none", Scope: "none", User: "same", Groups: "none"},
		missing: []string{"fs", "net", "scope"},
	}, {
		name:    "root that cannot become nobody",
		plat:    Platform{ABI: 7, NetNS: true, Seccomp: true, Root: true, NoUser: "setuid refused"},
		want:    Layers{FS: "landlock-v7", Net: "netns", Scope: "landlock+seccomp", User: "same", Groups: "kept"},
		missing: []string{"user"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			d := decide(tc.plat, Settings{}, "auto")
			tc.want.Mode, tc.want.Env = "auto", "built"
			if diff := cmp.Diff(tc.want, d.layers); diff != "" {
				t.Errorf("layers (-want +got):\n%s", diff)
			}
			var missing []string
			for _, m := range d.missing {
				layer, _, _ := strings.Cut(m, ":")
				missing = append(missing, layer)
			}
			if !slices.Equal(missing, tc.missing) {
				t.Errorf("strict would refuse %v, want %v (%q)", missing, tc.missing, d.missing)
			}
			notes := strings.Join(d.notes, "\n")
			for _, w := range tc.notes {
				if !strings.Contains(notes, w) {
					t.Errorf("the notes lack %q:\n%s", w, notes)
				}
			}
			if got, want := d.layers.NetComplete(), d.layers.Net == "netns" || d.layers.Net == "seccomp"; got != want {
				t.Errorf("NetComplete = %v with net %s", got, d.layers.Net)
			}
		})
	}
}
