package config

import (
	"regexp"
	"sync"
	"sync/atomic"
)

// maxPatterns bounds the patterns CompilePattern keeps. A config has a
// handful; the bound only keeps a process that parses many configs (a
// fuzzer) from keeping them all.
const maxPatterns = 256

var (
	patterns     sync.Map // expr → *regexp.Regexp
	patternCount atomic.Int32
)

// CompilePattern compiles the pattern of a regex or not-regex check. It is
// the one owner of that compilation: validation compiles a pattern to
// report a bad one, package check to use it, and the second call gets
// what the first compiled. The error is regexp.Compile's.
func CompilePattern(expr string) (*regexp.Regexp, error) {
	if re, ok := patterns.Load(expr); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	if patternCount.Add(1) <= maxPatterns {
		patterns.Store(expr, re)
	}
	return re, nil
}
