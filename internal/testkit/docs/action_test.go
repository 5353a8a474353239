package docs

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/action"
)

// actionMeta is the part of action.yml these tests compare.
type actionMeta struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct{} `yaml:"outputs"`
}

func readAction(t *testing.T) actionMeta {
	t.Helper()
	var a actionMeta
	if err := yaml.Unmarshal([]byte(readRoot(t, "action.yml")), &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// inputsRead are the inputs action.LoadInputs reads: the INPUT_* variables
// it asks getenv for, named as action.yml names them.
func inputsRead(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	_, _ = action.LoadInputs(func(k string) string {
		if name, ok := strings.CutPrefix(k, "INPUT_"); ok {
			// INPUT_GITHUB-TOKEN and its fallback INPUT_GITHUB_TOKEN are one input.
			seen[strings.ToLower(strings.ReplaceAll(name, "_", "-"))] = true
		}
		return ""
	})
	return sortedKeys(seen)
}

// pendingOutputs are outputs action.yml declares that internal/actionrun
// does not write yet, each with the reason. An entry that the code writes
// fails the test, so the table empties as the code catches up.
// (None now: add "name": "why" while a branch that writes it is pending.)
var pendingOutputs = map[string]string{}

// outputsWritten are the step outputs internal/actionrun writes, found in
// its source: a string literal that is the first argument of a call to a
// function or method named Set, SetOutput or setOutput, or the name of a
// {name, value} pair in a slice of struct{ name, value string } (the table
// setOutputs walks).
func outputsWritten(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	dir := filepath.Join(root, "internal", "actionrun")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	literal := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				seen[s] = true
			}
		}
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				name := ""
				switch fn := n.Fun.(type) {
				case *ast.SelectorExpr:
					name = fn.Sel.Name
				case *ast.Ident:
					name = fn.Name
				}
				if (name == "Set" || name == "SetOutput" || name == "setOutput") && len(n.Args) == 2 {
					literal(n.Args[0])
				}
			case *ast.CompositeLit:
				if isNameValueTable(n.Type) {
					for _, e := range n.Elts {
						if pair, ok := e.(*ast.CompositeLit); ok && len(pair.Elts) == 2 {
							literal(pair.Elts[0])
						}
					}
				}
			}
			return true
		})
	}
	if len(seen) == 0 {
		t.Fatalf("found no output written in %s: the rule in outputsWritten no longer fits the code", dir)
	}
	return sortedKeys(seen)
}

// isNameValueTable reports whether typ is []struct{ name, value string }.
func isNameValueTable(typ ast.Expr) bool {
	arr, ok := typ.(*ast.ArrayType)
	if !ok {
		return false
	}
	st, ok := arr.Elt.(*ast.StructType)
	if !ok {
		return false
	}
	var names []string
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
	}
	return slices.Equal(names, []string{"name", "value"})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestActionInputsAreWhatTheCodeReads: action.yml declares exactly the
// inputs action.LoadInputs reads.
func TestActionInputsAreWhatTheCodeReads(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff(sortedKeys(readAction(t).Inputs), inputsRead(t)); diff != "" {
		t.Errorf("inputs, action.yml (-) vs read by action.LoadInputs (+):\n%s", diff)
	}
}

// TestActionOutputsAreWhatTheCodeWrites: action.yml declares exactly the
// outputs internal/actionrun writes, less those still pending.
func TestActionOutputsAreWhatTheCodeWrites(t *testing.T) {
	t.Parallel()
	written := outputsWritten(t)
	for name, why := range pendingOutputs {
		if slices.Contains(written, name) {
			t.Errorf("output %s is written now; remove it from pendingOutputs (%s)", name, why)
		}
	}
	var declared []string
	for _, name := range sortedKeys(readAction(t).Outputs) {
		if _, pending := pendingOutputs[name]; !pending {
			declared = append(declared, name)
		}
	}
	if diff := cmp.Diff(declared, written); diff != "" {
		t.Errorf("outputs, action.yml (-) vs written by internal/actionrun (+):\n%s", diff)
	}
}

// docInput is one row of the docs' inputs table.
type docInput struct {
	name, def, meaning string
	file               string
	line               int
}

func (in docInput) where() string { return fmt.Sprintf("%s:%d", in.file, in.line) }

var codeSpan = regexp.MustCompile("`([^`]+)`")

// docInputs reads the inputs table of the doc files (README.md and
// docs/*.md): the rows of three-column tables whose first cell is a code
// span naming an input.
func docInputs(t *testing.T) []docInput {
	t.Helper()
	var out []docInput
	for _, file := range docFiles(t) {
		for i, line := range strings.Split(readRoot(t, file), "\n") {
			cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
			if len(cells) != 3 {
				continue
			}
			for j := range cells {
				cells[j] = strings.TrimSpace(cells[j])
			}
			m := codeSpan.FindStringSubmatch(cells[0])
			if m == nil || m[0] != cells[0] {
				continue
			}
			if in := (docInput{name: m[1], def: cells[1], meaning: cells[2], file: file, line: i + 1}); in.isInput() {
				out = append(out, in)
			}
		}
	}
	return out
}

// isInput tells the inputs table's rows from other three-column tables
// with code in the first column (the comment commands).
func (in docInput) isInput() bool { return !strings.HasPrefix(in.name, "/") }

// TestDocsInputsAndOutputs: the docs' inputs table names action.yml's
// inputs, once each, with their defaults, every value it shows for an
// input is one the binary accepts, and the outputs paragraph names
// action.yml's outputs.
func TestDocsInputsAndOutputs(t *testing.T) {
	t.Parallel()
	meta := readAction(t)
	rows := docInputs(t)
	var documented []string
	for _, r := range rows {
		documented = append(documented, r.name)
		in, ok := meta.Inputs[r.name]
		if !ok {
			continue // the name diff below reports it
		}
		// A default that is one code span is action.yml's default; any other
		// text ("config's changes.mode") describes an empty default that the
		// code fills in.
		want := ""
		if m := codeSpan.FindStringSubmatch(r.def); m != nil && m[0] == r.def {
			want = m[1]
		}
		if in.Default != want {
			t.Errorf("%s: input %s's default is %q, action.yml's %q", r.where(), r.name, r.def, in.Default)
		}
		values := codeSpan.FindAllStringSubmatch(r.meaning, -1)
		if want != "" {
			values = append(values, []string{"", want})
		}
		for _, v := range values {
			if refused(r.name, v[1]) {
				t.Errorf("%s: shows %s: %s, which the binary refuses", r.where(), r.name, v[1])
			}
		}
	}
	slices.Sort(documented)
	if diff := cmp.Diff(sortedKeys(meta.Inputs), documented); diff != "" {
		t.Errorf("inputs, action.yml (-) vs the docs' inputs table (+):\n%s", diff)
	}
	file, outputs := docOutputs(t)
	if diff := cmp.Diff(sortedKeys(meta.Outputs), outputs); diff != "" {
		t.Errorf("outputs, action.yml (-) vs %s's \"Outputs:\" paragraph (+):\n%s", file, diff)
	}
}

// refused reports whether action.LoadInputs refuses value for the input
// name: one of its errors names the input and quotes the value.
func refused(name, value string) bool {
	_, err := action.LoadInputs(func(k string) string {
		if k == "INPUT_"+strings.ToUpper(name) {
			return value
		}
		return ""
	})
	return err != nil && strings.Contains(err.Error(), "input "+name) && strings.Contains(err.Error(), strconv.Quote(value))
}

var outputName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// docOutputs are the output names of the paragraph that starts
// "Outputs:", in the one doc file that has it: its code spans outside
// parentheses (inside them are values, as in `status` (`completed`, …)).
func docOutputs(t *testing.T) (file string, names []string) {
	t.Helper()
	var para string
	for _, f := range docFiles(t) {
		text := readRoot(t, f)
		start := strings.Index(text, "\nOutputs: ")
		if start < 0 {
			continue
		}
		if file != "" {
			t.Fatalf(`%s and %s both have a paragraph starting "Outputs: ": keep one`, file, f)
		}
		file = f
		para, _, _ = strings.Cut(text[start+1:], "\n\n")
	}
	if file == "" {
		t.Fatal(`no doc file has a paragraph starting "Outputs: "`)
	}
	depth := 0
	for i := 0; i < len(para); i++ {
		switch para[i] {
		case '(':
			depth++
		case ')':
			depth--
		case '`':
			end := strings.IndexByte(para[i+1:], '`')
			if end < 0 {
				t.Fatalf("%s: an unclosed ` in the outputs paragraph", file)
			}
			if span := para[i+1 : i+1+end]; depth == 0 && outputName.MatchString(span) {
				names = append(names, span)
			}
			i += end + 1
		}
	}
	slices.Sort(names)
	return file, names
}
