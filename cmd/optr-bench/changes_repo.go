package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// makeRepo commits n files of realistic sizes in a tree like a project's:
// 10 top-level directories of 10 packages, at most 100 files each. Sizes
// follow a log-normal law (median 3 KiB, a long tail up to 512 KiB; mean
// about 6 KiB, so about 60 MB for 10,000 files), as source files do; one
// file in 40 is binary (incompressible bytes, like an image), one in 50
// is executable. The content is deterministic, text compresses as source
// code does, so git's objects are as large as a real repository's.
func makeRepo(ctx context.Context, repo string, n int) (bytes int64, err error) {
	rng := rand.New(rand.NewPCG(4, 12))
	words := strings.Fields("func return if else for range err nil ctx context string int byte " +
		"package import type struct interface map slice append len make go defer select case " +
		"switch default break continue var const true false fmt Errorf Sprintf strings Join " +
		"path filepath os ReadFile WriteFile value result request response agent worktree patch")
	for i := range n {
		d := filepath.Join(repo, fmt.Sprintf("mod%d", i/1000), fmt.Sprintf("pkg%d", i/100%10))
		if i%100 == 0 {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return 0, err
			}
		}
		size := int(math.Exp(math.Log(3072) + 1.2*rng.NormFloat64()))
		size = min(max(size, 64), 512<<10)
		var body []byte
		name := fmt.Sprintf("file%05d.go", i)
		if i%40 == 39 {
			name = fmt.Sprintf("asset%05d.bin", i)
			body = make([]byte, size)
			for j := range body {
				body[j] = byte(rng.Uint32())
			}
		} else {
			var b strings.Builder
			for b.Len() < size {
				b.WriteString(strings.Repeat("\t", 1+rng.IntN(3)))
				for w := 3 + rng.IntN(8); w > 0; w-- {
					b.WriteString(words[rng.IntN(len(words))])
					b.WriteByte(' ')
				}
				fmt.Fprintf(&b, "%d\n", rng.IntN(1000))
			}
			body = []byte(b.String()[:size-1] + "\n")
		}
		mode := os.FileMode(0o644)
		if i%50 == 49 {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(d, name), body, mode); err != nil {
			return 0, err
		}
		bytes += int64(len(body))
	}
	cmd := exec.CommandContext(ctx, "sh", "-ec", "git init -q -b main . && git add -A && git -c gc.auto=0 commit -qm base && git repack -adq")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("make the %d-file repository: %v: %s", n, err, out)
	}
	return bytes, nil
}
