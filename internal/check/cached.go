package check

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"runtime"
)

// cachedCheck serves a deterministic check's verdicts (every kind but those
// that ask an agent, kind.judged) from the run's cache: the same output
// checked again, or produced by several agents, is checked once. The key is
// the constraint and the output's SHA-256; a check that runs a program in a
// result's own directory (kind.program; WithDir, code changes) is keyed by
// that result's patch too (WithPatch), and is not cached when the patch is
// not known, since the directory's files may differ. Errors (an unverified
// constraint) are not cached.
type cachedCheck struct {
	Checker
	name    string
	cache   *Verdicts
	command bool
}

func (c cachedCheck) Check(ctx context.Context, output string) (Outcome, error) {
	key := "verdict\x00" + c.name + "\x00" + outputKey(ctx, output)
	if c.command {
		if dir := dirOr(ctx, ""); dir != "" {
			patch, ok := ctx.Value(patchKey{}).(string)
			if !ok {
				return c.run(ctx, output)
			}
			key += "\x00patch:" + patch
		}
	}
	return c.cache.check(key, func() (Outcome, error) { return c.run(ctx, output) })
}

// run runs the check; a command check waits for a command slot first.
func (c cachedCheck) run(ctx context.Context, output string) (Outcome, error) {
	if c.command {
		release, err := c.cache.commandSlot(ctx)
		if err != nil {
			return Outcome{}, err
		}
		defer release()
	}
	return c.Checker.Check(ctx, output)
}

// outputHashKey carries an output's hex SHA-256 through a context.
type outputHashKey struct{}

// patchKey carries a result's patch SHA-256 through a context.
type patchKey struct{}

// WithOutputSHA256 tells the checks under ctx that output's hex SHA-256 is
// sum, so that a large output is not hashed again for the cache. Evaluate
// hashes the output once itself when the caller did not.
func WithOutputSHA256(ctx context.Context, output, sum string) context.Context {
	return context.WithValue(ctx, outputHashKey{}, hashed{output: output, sum: sum})
}

// WithPatch tells the command checks under ctx (which run in the result's
// own directory, WithDir) the hex SHA-256 of that result's patch, so that
// their verdicts can be cached: two results with the same output and the
// same patch get the same verdict. Without it such checks always run.
func WithPatch(ctx context.Context, patchSHA256 string) context.Context {
	return context.WithValue(ctx, patchKey{}, patchSHA256)
}

type hashed struct{ output, sum string }

// outputKey returns output's hex SHA-256, from ctx when WithOutputSHA256
// put it there for this very output.
func outputKey(ctx context.Context, output string) string {
	if h, ok := ctx.Value(outputHashKey{}).(hashed); ok && len(h.output) == len(output) && h.output == output {
		return h.sum
	}
	sum := sha256.Sum256([]byte(output))
	return hex.EncodeToString(sum[:])
}

// withHash makes sure ctx carries output's hash (see WithOutputSHA256).
func withHash(ctx context.Context, output string) context.Context {
	if h, ok := ctx.Value(outputHashKey{}).(hashed); ok && h.output == output {
		return ctx
	}
	return WithOutputSHA256(ctx, output, outputKey(ctx, output))
}

// maxCommandChecks bounds the command checks of a run that run at once:
// each is a process start, and a check such as go test ./... uses a core.
// They run outside the agents' slots, so this is the only bound on them.
func maxCommandChecks() int { return max(2, runtime.GOMAXPROCS(0)) }
