package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/optr-dev/optr/internal/worktree"
)

// P4 flags.
var (
	changesFiles     = flag.Int("changes-files", 10_000, "P4: files in the repository")
	changesAgents    = flag.Int("changes-agents", 8, "P4: coding agents, each in a repository of its own")
	changesAgentTime = flag.Duration("changes-agent-time", 10*time.Second, "P4: how long each agent runs")
	changesByGit     = flag.Bool("changes-git", false, "P4: let git check every tree out (no snapshot in memory)")
	changesRoot      = flag.String("changes-root", "", "P4: the directory the worktrees go in (default: in the bench's temporary directory)")
)

// changesOverhead measures P4: what code changes add to a run's wall time
// (architecture §4.12). On a repository of n files of realistic sizes
// (makeRepo) it does, runs times, what the driver does around k coding
// agents: Start (prune + lock) and one tree per agent (Add, all asked
// for at once), each agent started as soon as its own tree is ready, as
// the driver starts it; the agents are real processes that each change
// three files in their tree and run for agentTime; then Capture of every
// change (all at once, as the agents end together) and Discard. Set-up
// is until the last tree is ready (the first and last agent's start are
// shown); the overhead is set-up + capture + clean-up (Discard, until it
// returns: the files it deletes in the background are timed apart, until
// Wait returns, and shown beside); the share is overhead / the round's
// wall time. Medians over the rounds, min–max.
//
// Two rows: P4 with the wall time measured here, and P4cpu with the
// overhead's CPU time (user + system, git processes included) spread over
// the machine's cores: the wall time an otherwise idle runner with those
// cores would see. On a shared machine the first is inflated by everyone
// else's load; the second is not. Beside them, P4bare: a bare program
// writing the same k × n files from memory (writeFloor), in each round,
// and P4floor: set-up + capture ÷ that, the goal of issue 27 (≤ 1.1),
// with what reading the base's blobs costs by itself. The floor and the
// round take turns going first, each after a sync.
//
// byGit has git check every tree out (-changes-git);
// wtRoot, when not empty, is the directory the worktrees go in
// (-changes-root), else they go in dir.
func changesOverhead(ctx context.Context, dir string, n, k, runs int, agentTime time.Duration, byGit bool, wtRoot string) ([]row, error) {
	repo := filepath.Join(dir, "changes-repo")
	size, err := makeRepo(ctx, repo, n)
	if err != nil {
		return nil, err
	}
	files, err := readFiles(repo)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(dir, "wt")
	if wtRoot != "" {
		root = filepath.Join(wtRoot, filepath.Base(dir))
		defer os.RemoveAll(root)
	}
	var setup, first, capture, cleanup, deleting, share, cpuShare, floorShare, floor, ratio, blobs []float64
	cores := runtime.NumCPU()
	for i := range runs {
		// The floor and the round take turns going first, each after the
		// writes before it reached the disk (settle, untimed), so that
		// neither pays for the other's writeback or deletion.
		var f time.Duration
		if i%2 == 1 {
			settle()
			if f, err = writeFloor(files, root+"-floor", k); err != nil {
				return nil, err
			}
		}
		settle()
		t, err := changesRound(ctx, repo, root, fmt.Sprintf("bench-%d", i), k, agentTime, byGit)
		if err != nil {
			return nil, err
		}
		if i%2 == 0 {
			settle()
			if f, err = writeFloor(files, root+"-floor", k); err != nil { // beside the worktrees, on the same file system
				return nil, err
			}
		}
		settle()
		b, err := readBlobs(ctx, repo)
		if err != nil {
			return nil, err
		}
		blobs = append(blobs, b.Seconds())
		over := t.setup + t.capture + t.cleanup
		setup = append(setup, t.setup.Seconds())
		first = append(first, t.first.Seconds())
		capture = append(capture, t.capture.Seconds())
		cleanup = append(cleanup, t.cleanup.Seconds())
		deleting = append(deleting, t.deleting.Seconds())
		share = append(share, 100*over.Seconds()/t.wall.Seconds())
		cpu := t.cpu / time.Duration(cores)
		cpuShare = append(cpuShare, 100*cpu.Seconds()/(agentTime+cpu).Seconds())
		floor = append(floor, f.Seconds())
		floorShare = append(floorShare, 100*f.Seconds()/(agentTime+f).Seconds())
		ratio = append(ratio, (t.setup+t.capture).Seconds()/f.Seconds())
	}
	how := "repositories of their own, written from a snapshot"
	if byGit {
		how = "repositories of their own, checked out by git"
	}
	what := fmt.Sprintf("changes: %d worktrees (%s) + captures, %d files (%d MB), agents of %s", k, how, n, size>>20, agentTime)
	s, c := spreadOf(share), spreadOf(cpuShare)
	return []row{{
		id: "P4", what: what + fmt.Sprintf(" (wall, %d runs)", runs),
		measured: fmt.Sprintf("set-up %s s (first agent starts at %s s), capture %s s, clean-up %s s (+ %s s deleting in the background)",
			spreadOf(setup).format("%.2f"), spreadOf(first).format("%.2f"), spreadOf(capture).format("%.2f"), spreadOf(cleanup).format("%.2f"), spreadOf(deleting).format("%.2f")),
		value: s.format("%.1f") + "%", goal: "≤ 10%", ok: s.med <= 10,
	}, {
		id: "P4cpu", what: what + fmt.Sprintf(" (CPU / %d cores)", cores),
		measured: "overhead's CPU time / cores, as a share of agents + it",
		value:    c.format("%.1f") + "%", goal: "≤ 10%", ok: c.med <= 10,
	}, {
		id: "P4bare", what: fmt.Sprintf("beside it: the same %d × %d files written by a bare program, no git (wall, %d runs)", k, n, runs),
		measured: fmt.Sprintf("writing them took %s s; as a share of agents + it", spreadOf(floor).format("%.2f")),
		value:    spreadOf(floorShare).format("%.1f") + "%",
	}, {
		id: "P4floor", what: fmt.Sprintf("set-up + capture ÷ the bare program writing the same %d × %d files, each round (%d runs)", k, n, runs),
		measured: fmt.Sprintf("the files are the cost; of optr's work around them, reading the base's blobs (git ls-tree + git cat-file --batch alone) takes %s s", spreadOf(blobs).format("%.2f")),
		value:    spreadOf(ratio).format("%.2f"), goal: "≤ 1.1", ok: spreadOf(ratio).med <= 1.1,
	}}, nil
}

// repoFile is one file of a repository's work tree, read into memory.
type repoFile struct {
	rel  string
	mode fs.FileMode
	data []byte
}

// readFiles reads the regular files of the work tree at repo (not .git).
func readFiles(repo string) ([]repoFile, error) {
	var files []repoFile
	err := filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		files = append(files, repoFile{rel, info.Mode().Perm(), data})
		return nil
	})
	return files, err
}

// writeFloor is what file creation alone costs on this machine, beside
// P4's set-up: the time a bare program takes to create k copies of files
// (the repository's, read once by readFiles, in path order), from
// memory, with no git at all, on the file system the worktrees are on
// (dst beside their root). It writes as well as optr's own writer does,
// so the floor is not flattered: the directories first, then the files
// of one directory at a time per worker (two threads creating files in
// the same directory wait on its lock), as many workers as cores, the
// copies one after the other. The copies are removed afterwards,
// untimed.
func writeFloor(files []repoFile, dst string, k int) (time.Duration, error) {
	defer os.RemoveAll(dst)
	start := time.Now()
	for i := range k {
		base := filepath.Join(dst, fmt.Sprint(i))
		made := map[string]bool{}
		for _, f := range files {
			if d := filepath.Dir(filepath.Join(base, f.rel)); !made[d] {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return 0, err
				}
				made[d] = true
			}
		}
		var g errgroup.Group
		g.SetLimit(runtime.NumCPU())
		for next := 0; next < len(files); {
			lo, hi := next, next+1
			for hi < len(files) && hi-lo < 512 && filepath.Dir(files[hi].rel) == filepath.Dir(files[lo].rel) {
				hi++
			}
			next = hi
			g.Go(func() error {
				for _, f := range files[lo:hi] {
					if err := os.WriteFile(filepath.Join(base, f.rel), f.data, f.mode); err != nil {
						return err
					}
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// readBlobs times what reading the base commit's files from the
// repository's objects costs by itself, the part of the set-up no tree
// can be written before: git ls-tree of HEAD, then git cat-file --batch
// of every blob, its output read and dropped.
func readBlobs(ctx context.Context, repo string) (time.Duration, error) {
	start := time.Now()
	cmd := exec.CommandContext(ctx, "sh", "-ec", "git ls-tree -r -z --full-tree HEAD | tr '\\0' '\\n' | awk '$2 == \"blob\" {print $3}' | git cat-file --batch | wc -c")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("read the blobs of %s: %v: %s", repo, err, out)
	}
	return time.Since(start), nil
}

// changesTimes is one round of P4: the wall times of the set-up (until
// the last tree was ready; first: the first), the capture, Discard and
// the deletion after it, of the round as a whole, and the overhead's CPU
// time.
type changesTimes struct {
	setup, first, capture, cleanup, deleting, wall, cpu time.Duration
}

// changesRound runs one measured round; byGit has git check every tree
// out.
func changesRound(ctx context.Context, repo, root, runID string, k int, agentTime time.Duration, byGit bool) (changesTimes, error) {
	var ct changesTimes
	opts := worktree.Options{Workspace: repo, Root: root, RunID: runID}
	if byGit {
		opts.SnapshotBytes = -1
	}
	t0, c0 := time.Now(), cpuTime()
	run, err := worktree.Start(ctx, opts)
	if err != nil {
		return ct, err
	}
	defer run.Close(ctx)
	// Each agent starts as soon as its tree is ready: it edits a file in
	// place, adds one and deletes one, then works until agentTime is up.
	trees := make([]*worktree.Tree, k)
	ready := make([]time.Duration, k)
	var g errgroup.Group
	for i := range trees {
		g.Go(func() (err error) {
			if trees[i], err = run.Add(ctx, fmt.Sprintf("agent-%d", i)); err != nil {
				return err
			}
			ready[i] = time.Since(t0)
			script := fmt.Sprintf(`printf 'changed by agent %d\n' >> mod0/pkg0/file00000.go
echo new > new-%d.txt
rm mod0/pkg1/file00100.go
sleep %.3f`, i, i, agentTime.Seconds())
			cmd := exec.CommandContext(ctx, "sh", "-ec", script)
			cmd.Dir = trees[i].Dir()
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("agent %d: %v: %s", i, err, out)
			}
			if ran := time.Since(start); ran < agentTime {
				return fmt.Errorf("agent %d ran %s, less than %s", i, ran, agentTime)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return ct, err
	}
	ct.first, ct.setup = slices.Min(ready), slices.Max(ready)
	ct.cpu = cpuTime() - c0 // with the agents' few milliseconds of sh

	t2, c2 := time.Now(), cpuTime()
	for _, t := range trees {
		g.Go(func() error {
			ch, err := t.Capture(ctx, worktree.Limits{})
			if err == nil && (ch.Refused != "" || len(ch.Files) != 3) {
				err = fmt.Errorf("capture of %s: refused %q, %d files", t.Agent(), ch.Refused, len(ch.Files))
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return ct, err
	}
	t3 := time.Now()
	ct.capture = t3.Sub(t2)
	if err := run.Discard(ctx); err != nil {
		return ct, err
	}
	t4 := time.Now()
	ct.cleanup, ct.wall, ct.cpu = t4.Sub(t3), t4.Sub(t0), ct.cpu+cpuTime()-c2
	if err := run.Wait(ctx); err != nil {
		return ct, err
	}
	ct.deleting = time.Since(t4)
	return ct, nil
}
