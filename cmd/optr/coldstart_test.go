package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every start of optr runs the init of every package it links, whatever
// the command: `optr version` pays for them all. These bounds are on
// allocations, which are the same from run to run, not on times, which are
// not. For scale (GODEBUG=inittrace=1 optr version, a release build): the
// largest init is the JSON Schema library's, which compiles every draft's
// metaschema in its init (1,701,744 bytes, 21,294 allocs, 7.9 ms clock);
// the next is openai-go's (≈140 KiB); all inits together ≈2.5 MB (26,300
// allocs), ≈0.75 MB without the JSON Schema library. optr used a copy of
// that library whose metaschemas compiled on first use, to save those 6 ms
// of every start; it went back to the upstream module (issue 23: no forked
// library), and C1's goal (cmd/optr-bench) became ≤ 60 ms.
const (
	maxInitBytes      = 256 << 10 // any one package not in initAllowance
	maxOwnInitBytes   = 32 << 10  // any one of optr's own packages
	maxTotalInitBytes = 3 << 20   // all packages together (measured ≈2.5 MB)
)

// initAllowance are the packages whose init may allocate more than
// maxInitBytes, each with its bound: what it measured, with some room. A
// package that outgrows its bound fails the test, as one that is not here
// fails at maxInitBytes.
var initAllowance = map[string]int64{
	// Compiles the metaschemas of drafts 4 to 2020-12 in init, which
	// upstream offers no way to defer: 1,701,744 bytes, 21,294 allocs.
	"github.com/santhosh-tekuri/jsonschema/v6": 2 << 20,
}

const ownPrefix = "github.com/optr-dev/optr/"

// initCost is one line of GODEBUG=inittrace=1:
// "init pkg @0.5 ms, 0.12 ms clock, 1234 bytes, 12 allocs".
type initCost struct {
	pkg           string
	bytes, allocs int64
}

func parseInitTrace(trace string) ([]initCost, error) {
	var costs []initCost
	for line := range strings.Lines(trace) {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "init" {
			continue
		}
		if len(f) != 11 || f[8] != "bytes," || f[10] != "allocs" {
			return nil, fmt.Errorf("inittrace line %q: want init PKG @T ms, T ms clock, N bytes, N allocs", line)
		}
		b, err1 := strconv.ParseInt(f[7], 10, 64)
		a, err2 := strconv.ParseInt(f[9], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("inittrace line %q: bytes or allocs is not a number", line)
		}
		costs = append(costs, initCost{pkg: f[1], bytes: b, allocs: a})
	}
	return costs, nil
}

// initViolations lists the inits of costs that break the bounds above.
func initViolations(costs []initCost) []string {
	var bad []string
	var total int64
	for _, c := range costs {
		total += c.bytes
		limit := int64(maxInitBytes)
		if strings.HasPrefix(c.pkg, ownPrefix) {
			limit = maxOwnInitBytes
		}
		if allowed, ok := initAllowance[c.pkg]; ok {
			limit = allowed
		}
		if c.bytes > limit {
			bad = append(bad, fmt.Sprintf("init of %s allocates %d bytes (%d allocs), more than %d: move the work behind a sync.OnceValue or lazyregexp.New", c.pkg, c.bytes, c.allocs, limit))
		}
	}
	if total > maxTotalInitBytes {
		bad = append(bad, fmt.Sprintf("package inits allocate %d bytes in all, more than %d", total, maxTotalInitBytes))
	}
	return bad
}

// TestNoHeavyInit runs the built optr with GODEBUG=inittrace=1 and bounds
// what package inits allocate.
func TestNoHeavyInit(t *testing.T) {
	t.Parallel()
	cmd := exec.CommandContext(t.Context(), optrBin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("optr version: %v\n%s", err, stderr.String())
	}
	costs, err := parseInitTrace(stderr.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(costs) < 50 {
		t.Fatalf("inittrace has %d init lines; want one per package (is GODEBUG=inittrace=1 honoured?)\n%s", len(costs), stderr.String())
	}
	for _, v := range initViolations(costs) {
		t.Error(v)
	}
}

// TestInitViolations: the bounds catch what they are for.
func TestInitViolations(t *testing.T) {
	t.Parallel()
	// The JSON Schema library within its allowance, then past it; an
	// init of our own over its bound; a library over the general bound;
	// and all of them together over the total.
	within := "init github.com/santhosh-tekuri/jsonschema/v6 @6.1 ms, 10 ms clock, 1701064 bytes, 21284 allocs\n"
	heavy := `init github.com/santhosh-tekuri/jsonschema/v6 @6.1 ms, 10 ms clock, 2701064 bytes, 31284 allocs
init github.com/optr-dev/optr/internal/checkpoint @20 ms, 0.63 ms clock, 84416 bytes, 1167 allocs
init github.com/openai/openai-go/v3 @12 ms, 1.2 ms clock, 443360 bytes, 1057 allocs
`
	costs, err := parseInitTrace(within)
	if err != nil {
		t.Fatal(err)
	}
	if got := initViolations(costs); len(got) != 0 {
		t.Errorf("initViolations(the JSON Schema library as measured) = %q, want none: it is within its allowance", got)
	}
	costs, err = parseInitTrace(heavy)
	if err != nil {
		t.Fatal(err)
	}
	got := initViolations(costs)
	if len(got) != 4 || !strings.Contains(got[0], "santhosh-tekuri") || !strings.Contains(got[1], "internal/checkpoint") || !strings.Contains(got[2], "openai-go") || !strings.Contains(got[3], "in all") {
		t.Errorf("initViolations = %q, want jsonschema, checkpoint, openai-go and the total", got)
	}
	if _, err := parseInitTrace("init runtime @0 ms, 0.85 ms clock, lots of bytes\n"); err == nil {
		t.Error("parseInitTrace accepted a malformed init line")
	}
}

// TestNoRegexpCompiledAtInit: optr's packages declare package-level
// regular expressions with lazyregexp.New, so that no command pays to
// compile patterns it never uses. A regexp.MustCompile in a package-level
// var would run in init.
func TestNoRegexpCompiledAtInit(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	var found []string
	for _, dir := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.VAR {
					continue
				}
				ast.Inspect(gd, func(n ast.Node) bool {
					if _, ok := n.(*ast.FuncLit); ok {
						return false // runs when called, not in init
					}
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
						if x, ok := sel.X.(*ast.Ident); ok && x.Name == "regexp" {
							found = append(found, fmt.Sprintf("%s: package-level regexp.%s: use lazyregexp.New", path, sel.Sel.Name))
						}
					}
					return true
				})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range found {
		t.Error(f)
	}
}
