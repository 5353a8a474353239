package check

import "context"

// dirKey carries a result's working directory through a context.
type dirKey struct{}

// WithDir returns a context under which command checks run in dir instead
// of Options.Dir. With code changes (architecture §4.12) the caller evaluates
// each result under its agent's worktree,
//
//	check.Evaluate(check.WithDir(ctx, tree.Dir()), constraints, output)
//
// so that a check such as `go test ./...` verifies that agent's change.
// Only command checks use it; json-schema paths stay relative to
// Options.Dir. An empty dir changes nothing.
func WithDir(ctx context.Context, dir string) context.Context {
	if dir == "" {
		return ctx
	}
	return context.WithValue(ctx, dirKey{}, dir)
}

// dirOr returns the directory WithDir put in ctx, else def.
func dirOr(ctx context.Context, def string) string {
	if d, ok := ctx.Value(dirKey{}).(string); ok {
		return d
	}
	return def
}

// DirOf returns the directory WithDir put in ctx, or "" when there is
// none. A checker that judges a result's worktree (package worktree's
// changes constraint) finds it this way.
func DirOf(ctx context.Context) string { return dirOr(ctx, "") }
