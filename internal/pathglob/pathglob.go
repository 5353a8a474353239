package pathglob

import (
	"fmt"
	"path"
	"strings"
)

// Match reports whether the slash-separated repository path name
// matches pattern. The pattern is matched against the whole path, segment
// by segment: "**" matches any number of segments, none included; any
// other segment is a path.Match pattern ("*", "?", "[…]") that never
// crosses a "/". So ".github/workflows/**" matches everything below that
// directory, "**/*.pem" matches a .pem file at any depth, and "*.pem" only
// at the top level. A malformed pattern matches nothing (Validate says
// why).
func Match(pattern, name string) bool {
	return matchSegs(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := range name {
				if matchSegs(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// Validate reports what is wrong with a protect pattern, or nil.
func Validate(pattern string) error {
	switch {
	case pattern == "":
		return fmt.Errorf("the pattern is empty")
	case strings.HasPrefix(pattern, "/"):
		return fmt.Errorf("%q starts with '/': patterns are relative to the repository root, write it without", pattern)
	case strings.Contains(pattern, "\\"):
		return fmt.Errorf("%q contains '\\': use '/' between directories", pattern)
	}
	for _, seg := range strings.Split(pattern, "/") {
		switch {
		case seg == "" || seg == "." || seg == "..":
			return fmt.Errorf("%q has an empty, '.' or '..' segment", pattern)
		case seg != "**" && strings.Contains(seg, "**"):
			return fmt.Errorf("%q: '**' must be a whole segment (a/**/b), not part of one", pattern)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("%q: segment %q is not a valid pattern: %w", pattern, seg, err)
		}
	}
	return nil
}
