package proctest

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Tagged lists the processes whose command line holds tag anywhere: the
// ones a test left behind with a tag it put there (Linux's /proc; none
// elsewhere).
func Tagged(tag string) []int {
	return find(func(cmdline string) bool { return strings.Contains(cmdline, tag) })
}

// WithArg lists the processes that have arg as one whole argument: the
// leavers of sh -c '…' arg, not the script that starts them, whose text
// holds arg too, nor a subshell forked from that script.
func WithArg(arg string) []int {
	return find(func(cmdline string) bool { return slices.Contains(strings.Split(cmdline, "\x00"), arg) })
}

// find lists the processes whose command line (its arguments joined by
// NULs) matches.
func find(match func(cmdline string) bool) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && match(string(b)) {
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}
