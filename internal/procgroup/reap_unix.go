//go:build unix

package procgroup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// ownerVar is the environment variable every process group optr starts
// carries: "<pid>:<start time>" of the optr process that started it. A
// process whose owner no longer runs (the pid is gone, or is another
// process with another start time) is an orphan of an optr that died.
const ownerVar = "OPTR_PROCGROUP_OWNER"

// ownerToken is this process's value of ownerVar.
var ownerToken = sync.OnceValue(func() string {
	pid := os.Getpid()
	return strconv.Itoa(pid) + ":" + startTime(pid)
})

// startTime is the start time of pid in clock ticks after boot (field 22 of
// /proc/<pid>/stat), "0" when unknown (no /proc).
func startTime(pid int) string {
	f, ok := statFields(pid)
	if !ok || len(f) < 20 {
		return "0"
	}
	return f[19]
}

// statFields returns the fields of /proc/<pid>/stat after the command
// name, whose parentheses may hold anything: index 0 is the state, 2 the
// process group, 19 the start time.
func statFields(pid int) ([]string, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(data[i+1:])), true
}

// Reaped is what Reap found and killed.
type Reaped struct {
	// Processes are the pids killed.
	Processes []int
	// Owners are the dead optr processes ("pid:start") they belonged to.
	Owners []string
}

// Reap kills every process that a process group started by an optr that
// is no longer running left behind: agents and command checks that
// outlived an optr killed with SIGKILL (their group leader died with it on
// Linux, see New; children it started did not). Processes of an optr that
// still runs — a concurrent run on the same runner — are left alone. The
// driver calls it once at start, before the first agent.
//
// It reads /proc, so it finds nothing where there is none (macOS, the
// BSDs without procfs): there a killed optr's agents run until they end or
// the runner stops the job. A process that cleared its environment, or
// left the group and dropped OPTR_PROCGROUP_OWNER, is not found either.
func Reap(ctx context.Context) (Reaped, error) {
	var out Reaped
	entries, err := os.ReadDir("/proc")
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("reap orphaned agents: %w", err)
	}
	self := os.Getpid()
	alive := map[string]bool{ownerToken(): true}
	var env []byte // reused: one environment at a time
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		var owner string
		var ok bool
		if env, owner, ok = ownerOf(pid, env); !ok {
			continue
		}
		live, seen := alive[owner]
		if !seen {
			live = ownerAlive(owner)
			alive[owner] = live
			if !live {
				out.Owners = append(out.Owners, owner)
			}
		}
		if live {
			continue
		}
		if f, ok := statFields(pid); ok && len(f) > 2 {
			if pgid, err := strconv.Atoi(f[2]); err == nil && pgid > 1 && pgid != syscall.Getpgrp() {
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err == nil || errors.Is(err, syscall.ESRCH) {
			out.Processes = append(out.Processes, pid)
		}
	}
	return out, nil
}

// ownerOf returns the value of ownerVar in pid's environment, which it
// reads into buf (returned, to be used again). Every run reads every
// process's environment once, before its first agent: with one buffer
// kept from process to process, most take one read; os.ReadFile, which
// starts small since /proc gives no size, took three or four, each a walk
// of the other process's memory (5× the time on a busy runner).
func ownerOf(pid int, buf []byte) ([]byte, string, bool) {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return buf, "", false
	}
	defer f.Close()
	if cap(buf) == 0 {
		buf = make([]byte, 0, 64<<10)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf))
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return buf, "", false
		}
	}
	prefix := []byte(ownerVar + "=")
	for kv := range bytes.SplitSeq(buf, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, prefix); ok {
			return buf, string(v), true
		}
	}
	return buf, "", false
}

// ownerAlive reports whether the optr process named by token still runs.
func ownerAlive(token string) bool {
	pidText, start, ok := strings.Cut(token, ":")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 {
		return false
	}
	if start == "0" { // no start time recorded: trust the pid
		return syscall.Kill(pid, 0) == nil
	}
	return startTime(pid) == start
}

// Self names this process for Alive: "<pid>:<start time>", the value of
// OPTR_PROCGROUP_OWNER in the groups it starts.
func Self() string { return ownerToken() }

// Alive reports whether the process named by token (see Self) still runs:
// the pid exists and, where /proc tells, started at the same time.
func Alive(token string) bool {
	return token == ownerToken() || ownerAlive(token)
}
