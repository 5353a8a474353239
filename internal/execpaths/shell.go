package execpaths

import (
	"bytes"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellArgs follows `sh [options] script args` or `sh -c 'commands'`.
func (f *follower) shellArgs(args []string, dir, by string, depth int) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" && i+1 < len(args):
			f.shellText(args[i+1], "", dir, by, depth+1, true)
			return
		case a == "-o" || a == "+o":
			i++ // its option name
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
		default:
			if p := f.file(a, dir); p != "" {
				f.shellFile(p, depth+1)
			}
			return
		}
	}
}

// shellFile follows the shell script p: what it sources, and the
// programs it runs.
func (f *follower) shellFile(p string, depth int) {
	data := f.load(p)
	if data == nil {
		return
	}
	f.shellText(string(data), p, ".", p, depth+1, true)
}

// shellText follows shell code: the file script (relative to the root;
// "" for a -c string), run in dir. Strict code that does not parse joins
// with its whole folder, as what it loads cannot be known; a recipe line
// of a Makefile that does not (make's own syntax) is skipped.
func (f *follower) shellText(code, script, dir, by string, depth int, strict bool) {
	if depth > maxDepth {
		return
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(code), script)
	if err != nil {
		if strict {
			f.unresolved(script, dir, by, "it does not parse as a shell script")
		}
		return
	}
	ev := &evaluator{script: script, dir: dir, vars: map[string]string{}}
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil && n.Value != nil && !n.Append && n.Index == nil {
				if v, ok := ev.word(n.Value); ok {
					ev.vars[n.Name.Value] = v
				} else {
					delete(ev.vars, n.Name.Value)
				}
			}
		case *syntax.CallExpr:
			f.call(ev, n, script, dir, by, depth)
		}
		return true
	})
}

// call follows one simple command of a script: `source`/`.` loads a file,
// anything else is a command whose words are followed as argv.
func (f *follower) call(ev *evaluator, c *syntax.CallExpr, script, dir, by string, depth int) {
	if len(c.Args) == 0 {
		return
	}
	name, _ := ev.word(c.Args[0])
	if name == "source" || name == "." {
		if len(c.Args) < 2 {
			return
		}
		target, ok := ev.word(c.Args[1])
		p := ""
		if ok {
			p = f.file(target, dir)
		}
		switch {
		case !ok:
			f.unresolved(script, dir, by, "it sources a path computed when it runs")
		case p != "":
			f.set.AddFile(p, "sourced by "+orCommand(script, by))
			f.shellFile(p, depth)
		}
		return
	}
	var argv []string
	for _, w := range c.Args {
		v, ok := ev.word(w)
		if !ok {
			break // the command's words we cannot know are not followed
		}
		argv = append(argv, v)
	}
	f.command(argv, dir, orCommand(script, by), depth+1)
}

// unresolved makes the folder of script (or, for a -c string, the whole
// repository) part of the set, saying why.
func (f *follower) unresolved(script, dir, by, why string) {
	where := path.Dir(script)
	if script == "" {
		where = dir
	}
	what := orCommand(script, by)
	f.set.Unresolved = append(f.set.Unresolved, what+": "+why)
	f.set.AddTree(where, "the folder of "+what+", which "+why)
}

func orCommand(script, by string) string {
	if script != "" {
		return script
	}
	return by
}

// evaluator expands the words of a script whose value is known without
// running it: literals, quotes, variables the script assigned so, $0 and
// ${BASH_SOURCE[0]} (the script), ${x%/*}, and the command substitutions
// scripts use to find their own folder — $(dirname …), $(cd … && pwd),
// $(realpath …), $(readlink -f …), $(pwd). Paths are relative to the
// root.
type evaluator struct {
	script, dir string
	vars        map[string]string
}

// word expands w; ok is false when its value cannot be known.
func (ev *evaluator) word(w *syntax.Word) (string, bool) { return ev.parts(w.Parts) }

// parts expands the parts of a word, or of a double-quoted string.
func (ev *evaluator) parts(ps []syntax.WordPart) (string, bool) {
	var b strings.Builder
	for _, part := range ps {
		v, ok := ev.part(part)
		if !ok {
			return "", false
		}
		b.WriteString(v)
	}
	return b.String(), true
}

func (ev *evaluator) part(p syntax.WordPart) (string, bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		return p.Value, true
	case *syntax.SglQuoted:
		return p.Value, true
	case *syntax.DblQuoted:
		return ev.parts(p.Parts)
	case *syntax.ParamExp:
		return ev.param(p)
	case *syntax.CmdSubst:
		return ev.subst(p)
	}
	return "", false
}

func (ev *evaluator) param(p *syntax.ParamExp) (string, bool) {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.Slice != nil || p.Repl != nil || p.Names != 0 {
		return "", false
	}
	var v string
	switch name := p.Param.Value; {
	case (name == "0" || name == "BASH_SOURCE") && ev.script != "":
		if p.Index != nil {
			if idx, ok := p.Index.(*syntax.Word); !ok || idx.Lit() != "0" {
				return "", false
			}
		}
		v = ev.script
	case name == "PWD" && p.Index == nil:
		v = ev.dir
	default:
		var ok bool
		if v, ok = ev.vars[name]; !ok || p.Index != nil {
			return "", false
		}
	}
	if p.Exp == nil {
		return v, true
	}
	arg := ""
	if p.Exp.Word != nil {
		var ok bool
		if arg, ok = ev.word(p.Exp.Word); !ok {
			return "", false
		}
	}
	if (p.Exp.Op == syntax.RemSmallSuffix || p.Exp.Op == syntax.RemLargeSuffix) && arg == "/*" {
		return path.Dir(v), true
	}
	return "", false
}

// subst knows the command substitutions that name a folder or a file.
func (ev *evaluator) subst(c *syntax.CmdSubst) (string, bool) {
	if len(c.Stmts) != 1 {
		return "", false
	}
	switch cmd := c.Stmts[0].Cmd.(type) {
	case *syntax.CallExpr:
		argv, ok := ev.words(cmd.Args)
		if !ok || len(argv) == 0 {
			return "", false
		}
		switch {
		case argv[0] == "dirname" && len(argv) == 2:
			return path.Dir(argv[1]), true
		case argv[0] == "pwd" && len(argv) == 1:
			return ev.dir, true
		case argv[0] == "realpath" && len(argv) == 2, argv[0] == "readlink" && len(argv) == 3 && argv[1] == "-f":
			return argv[len(argv)-1], true
		}
	case *syntax.BinaryCmd: // cd DIR && pwd [-P]
		x, ok1 := cmd.X.Cmd.(*syntax.CallExpr)
		y, ok2 := cmd.Y.Cmd.(*syntax.CallExpr)
		if !ok1 || !ok2 || cmd.Op != syntax.AndStmt {
			return "", false
		}
		cd, okx := ev.words(x.Args)
		pwd, oky := ev.words(y.Args)
		if okx && oky && len(cd) == 2 && cd[0] == "cd" && len(pwd) >= 1 && pwd[0] == "pwd" {
			return path.Join(ev.dir, cd[1]), true
		}
	}
	return "", false
}

func (ev *evaluator) words(ws []*syntax.Word) ([]string, bool) {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		v, ok := ev.word(w)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// makeIncludes lists the files a Makefile includes by literal names
// (include, -include, sinclude); ok is false when one is computed.
func makeIncludes(data []byte) (files []string, ok bool) {
	ok = true
	for _, line := range bytes.Split(data, []byte("\n")) {
		fields := strings.Fields(string(line))
		if len(fields) < 2 || (fields[0] != "include" && fields[0] != "-include" && fields[0] != "sinclude") {
			continue
		}
		for _, w := range fields[1:] {
			if strings.ContainsAny(w, "$*?[") {
				ok = false
				continue
			}
			files = append(files, w)
		}
	}
	return files, ok
}
