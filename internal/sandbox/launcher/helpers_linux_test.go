package launcher

import "os"

// helperMode runs the test binary as one of the Linux tests' programs
// when its variable is set: the routes out of the seccomp layer, or an
// unprivileged optr.
func helperMode() (int, bool) {
	if spec := os.Getenv(routesVar); spec != "" {
		tryRoutes(spec)
		return 0, true
	}
	if os.Getenv(unprivilegedVar) != "" {
		return unprivilegedLaunch(), true
	}
	return 0, false
}
