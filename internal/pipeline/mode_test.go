package pipeline

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/config"
)

// Every mode the config accepts is a row of the table, the default is
// select over every agent, and only a select run may change code.
func TestModeTable(t *testing.T) {
	t.Parallel()
	for _, name := range []string{config.ModeSelect, config.ModeDelegate, config.ModeStages} {
		tr, ok := ModeTraits(name)
		if !ok || tr.Name != name {
			t.Errorf("ModeTraits(%q) = %+v, %v", name, tr, ok)
		}
		if tr.Worktrees != (name == config.ModeSelect) {
			t.Errorf("mode %s: Worktrees %v", name, tr.Worktrees)
		}
	}
	if def, _ := ModeTraits(""); def.Name != config.ModeSelect {
		t.Errorf("the default mode is %q, want select", def.Name)
	}
	if _, ok := ModeTraits("round-robin"); ok {
		t.Error("an unknown mode has traits")
	}
	g := modes[0].traits.Gathered()
	if !g.Gathers || g.Spools || g.Name != config.ModeSelect {
		t.Errorf("gathered select = %+v", g)
	}
}

// modeTypes are the Mode implementations; nothing outside the table asks a
// mode whether it is one of them.
var modeTypes = map[string]bool{
	"selectMode": true, "delegateMode": true, "stagesMode": true, "GatherMode": true,
	"TaskMode": true, "topicMode": true, "coordinatorMode": true, "delegateGather": true,
}

// No code outside the table of modes (mode.go) tests a mode by its name
// (== config.ModeSelect, case config.ModeDelegate, …) or by its type: the
// differences between modes are their traits. internal/config, which
// defines the names and validates each mode's own keys, is the exception.
func TestNoModeTestedByNameOrType(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "config" && filepath.Base(filepath.Dir(path)) == "internal" || strings.HasPrefix(d.Name(), ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			filepath.Base(path) == "mode.go" && filepath.Base(filepath.Dir(path)) == "pipeline" {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isModeName(n.X) || isModeName(n.Y)) {
					found = append(found, fset.Position(n.Pos()).String()+": compares a mode name")
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if isModeName(e) || isModeType(e) {
						found = append(found, fset.Position(e.Pos()).String()+": a case on a mode")
					}
				}
			case *ast.TypeAssertExpr:
				if isModeType(n.Type) {
					found = append(found, fset.Position(n.Pos()).String()+": asserts a mode's type")
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("modes tested outside the table of modes (give the mode a trait instead):\n%s", strings.Join(found, "\n"))
	}
}

func isModeName(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "config" && strings.HasPrefix(sel.Sel.Name, "Mode")
}

func isModeType(e ast.Expr) bool {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch e := e.(type) {
	case *ast.Ident:
		return modeTypes[e.Name]
	case *ast.SelectorExpr:
		return modeTypes[e.Sel.Name]
	}
	return false
}
