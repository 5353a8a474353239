package detect

import (
	"path"
	"strings"

	"github.com/optr-dev/optr/internal/lazyregexp"
)

// Fetch-and-run: code fetched from the network and handed to an
// interpreter, which no review of the change can see. A line is read as
// shell, loosely (it may be a Dockerfile's RUN, a workflow's run:, a
// Makefile recipe, a README): cut into commands at |, ||, &&, ; and &,
// each command's name found past sudo, env, variable assignments and
// the like. Quotes are not honoured on purpose: sh -c "curl … | sh" runs
// the pipeline it quotes. Three shapes, and the languages' own:
//
//   - a pipeline in which a fetcher (curl, wget, iwr, …) comes before an
//     interpreter (sh, bash, python, iex, …): curl … | tee f | sh,
//     curl …|/bin/sh, curl … | sudo -E bash, curl … | env sh;
//   - an interpreter, eval or source given a fetcher's output by command
//     or process substitution: eval "$(curl …)", bash <(curl …);
//   - a file a fetcher wrote (curl -o f, wget URL, curl … > f) run, sourced
//     or made executable later in the change's same file, or any local
//     program run after a fetch on the same line: curl -o f && sh f;
//   - Python's exec or eval of urlopen or requests, JavaScript's eval or
//     Function of fetch, Ruby's eval of open-uri or Net::HTTP,
//     PowerShell's iex of a download.

// fetchers are the commands that fetch from the network.
var fetchers = map[string]bool{
	"curl": true, "wget": true, "fetch": true, "aria2c": true, "http": true, "https": true, "xh": true,
	"iwr": true, "irm": true, "invoke-webrequest": true, "invoke-restmethod": true, "lwp-request": true, "lwp-download": true,
}

// interpreters are the commands that run the code they are given.
var interpreters = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true, "fish": true,
	"csh": true, "tcsh": true, "busybox": true, "python": true, "python2": true, "python3": true, "pypy": true, "pypy3": true,
	"perl": true, "ruby": true, "node": true, "nodejs": true, "deno": true, "bun": true, "php": true, "lua": true,
	"pwsh": true, "powershell": true, "iex": true, "invoke-expression": true, "source": true, ".": true, "eval": true,
	"osascript": true, "tclsh": true, "rscript": true,
}

// prefixes are commands that run the command after them (with their
// options, and for some an operand).
var prefixes = map[string]int{ // the number of operands after the options
	"sudo": 0, "doas": 0, "env": 0, "command": 0, "exec": 0, "nohup": 0, "time": 0, "nice": 0, "ionice": 0,
	"stdbuf": 0, "setsid": 0, "xargs": 0, "timeout": 1, "chroot": 1, "runuser": 0,
}

// optionArgs are the options of prefixes that take the next word.
var optionArgs = map[string]bool{"-u": true, "-g": true, "-C": true, "-h": true, "-n": true, "-S": true, "-p": true, "-U": true}

// languageFetchRunRE: a language's own eval of what it fetched.
var languageFetchRunRE = lazyregexp.New(`(?i)(\b(exec|eval)\s*\(.*\b(urlopen|urlretrieve|requests\s*\.\s*(get|post)|httpx\s*\.\s*(get|post)|urllib)` +
	`|\beval\s*\(.*\bfetch\s*\(|\bnew\s+function\s*\(.*\bfetch\s*\(` +
	`|\beval\b.*(\bopen-uri\b|\buri\s*\.\s*open\b|net::http|\bopen\s*\(\s*['"]https?:)` +
	`|\b(iex|invoke-expression)\b.*\b(iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring|downloadfile|webclient|curl|wget)\b` +
	`|\b(downloadstring|iwr|irm|invoke-webrequest|invoke-restmethod)\b.*\|\s*(iex|invoke-expression)\b)`)

// command is one command of a line: its name and the words after it.
type command struct {
	name string   // lower-case, without its directory: sh for /bin/sh
	raw  string   // the name as written
	args []string // as written, quotes kept
	pipe bool     // its output goes to the next command (|)
}

// fetchRun finds what each line of a file's added lines fetches and runs.
// It keeps, across the file's lines, the files a fetch wrote.
type fetchRun struct {
	fetched map[string]bool // base names of files fetched
}

// maxFetched bounds the fetched names a file's scan remembers.
const maxFetched = 256

// languageWords are words one of which every match of
// languageFetchRunRE holds: a line without any is not searched.
var languageWords = []string{"eval", "exec", "function", "iex", "invoke-", "iwr", "irm", "download"}

// line reports whether text, a line of the file, fetches code and runs it.
func (fr *fetchRun) line(text string) bool {
	if containsAnyFold(text, languageWords) && languageFetchRunRE.MatchString(text) {
		return true
	}
	cmds := commands(text)
	fetchedHere := false
	for i, c := range cmds {
		switch {
		case fetchers[c.name]:
			// A fetcher piped into an interpreter further down the pipeline.
			for j := i; j+1 < len(cmds) && cmds[j].pipe; j++ {
				if interpreters[cmds[j+1].name] {
					return true
				}
			}
			fr.remember(c)
			fetchedHere = true
		case interpreters[c.name] && substitutesFetch(c.args):
			return true
		case fr.runsFetched(c):
			return true
		case fetchedHere && runsLocal(c):
			return true
		}
	}
	return false
}

// remember records the file a fetcher command writes: -o F, --output F,
// -O F (wget's document), -O alone or wget's default (the URL's base
// name), or a redirect > F.
func (fr *fetchRun) remember(c command) {
	if fr.fetched == nil {
		fr.fetched = map[string]bool{}
	}
	add := func(name string) {
		name = path.Base(strings.Trim(name, `"'`))
		if name != "" && name != "-" && name != "." && name != "/" && len(fr.fetched) < maxFetched {
			fr.fetched[strings.ToLower(name)] = true
		}
	}
	var url string
	explicit := false
	for i := 0; i < len(c.args); i++ {
		a := strings.Trim(c.args[i], `"'`)
		switch {
		case a == "-o" || a == "--output" || a == "--output-document" || a == "-O" && c.name == "wget" || a == ">" || a == ">>":
			if i+1 < len(c.args) {
				add(c.args[i+1])
				i++
			}
			explicit = true
		case strings.HasPrefix(a, "--output=") || strings.HasPrefix(a, "--output-document="):
			_, v, _ := strings.Cut(a, "=")
			add(v)
			explicit = true
		case strings.HasPrefix(a, ">") && len(a) > 1:
			add(strings.TrimLeft(a, ">"))
			explicit = true
		case strings.HasPrefix(a, "-o") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			add(a[2:])
			explicit = true
		case a == "-O" || a == "--remote-name" || strings.HasPrefix(a, "-") && strings.Contains(a[1:], "O") && !strings.HasPrefix(a, "--"):
			explicit = explicit || c.name != "wget" // curl -O: the URL's name
		case strings.Contains(a, "://"):
			url = a
		}
	}
	if url != "" && (!explicit || c.name == "curl") {
		add(strings.SplitN(url, "?", 2)[0])
	}
}

// runsFetched reports whether c runs, sources or makes executable a file
// a fetch wrote.
func (fr *fetchRun) runsFetched(c command) bool {
	if len(fr.fetched) == 0 {
		return false
	}
	if fr.fetched[c.name] && c.name != "" {
		return true // ./f
	}
	if !interpreters[c.name] && c.name != "chmod" {
		return false
	}
	for _, a := range c.args {
		a = strings.Trim(a, `"'`)
		if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+") {
			continue
		}
		if fr.fetched[strings.ToLower(path.Base(a))] {
			return true
		}
	}
	return false
}

// runsLocal reports whether c runs a program or script from the working
// tree (./install.sh, sh install.sh) rather than a command on PATH.
func runsLocal(c command) bool {
	raw := strings.TrimLeft(c.raw, "\"'`({!")
	if strings.HasPrefix(raw, "./") || strings.HasPrefix(raw, "../") || strings.HasPrefix(raw, "~/") || strings.HasPrefix(raw, "/tmp/") {
		return true
	}
	if len(c.args) > 0 && interpreters[c.name] {
		a := strings.Trim(c.args[0], `"'`)
		return a != "" && !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "$(") && !strings.HasPrefix(a, "<(")
	}
	return false
}

// substitutesFetch reports whether args hand a fetcher's output in by
// command or process substitution: "$(curl …)", `wget …`, <(curl …).
func substitutesFetch(args []string) bool {
	for _, a := range args {
		a = strings.TrimLeft(a, `"'`)
		for _, open := range []string{"$(", "`", "<("} {
			if rest, ok := strings.CutPrefix(a, open); ok && fetchers[commandName(rest)] {
				return true
			}
		}
	}
	return false
}

// commands cuts a line into commands (see the package's comment on
// fetch-and-run).
func commands(line string) []command {
	var out []command
	start := 0
	flush := func(end int, pipe bool) {
		if c, ok := parseCommand(line[start:end]); ok {
			c.pipe = pipe
			out = append(out, c)
		} else if pipe && len(out) > 0 {
			out[len(out)-1].pipe = true // an empty stage: the pipe goes on
		}
	}
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '|':
			if i+1 < len(line) && line[i+1] == '|' { // ||
				flush(i, false)
				i++
			} else {
				flush(i, true)
				if i+1 < len(line) && line[i+1] == '&' { // |&
					i++
				}
			}
			start = i + 1
		case ';':
			flush(i, false)
			start = i + 1
		case '&':
			if i > 0 && (line[i-1] == '>' || line[i-1] == '<') || i+1 < len(line) && line[i+1] == '>' {
				continue // a redirection: 2>&1, &>
			}
			flush(i, false)
			if i+1 < len(line) && line[i+1] == '&' {
				i++
			}
			start = i + 1
		}
	}
	flush(len(line), false)
	return out
}

// parseCommand finds the name of the command in s, past what only starts
// it: a YAML key or list dash, RUN, variable assignments, sudo, env and
// their options.
func parseCommand(s string) (command, bool) {
	words := strings.Fields(s)
	i := 0
	for i < len(words) {
		w := words[i]
		name := commandName(w)
		switch {
		case w == "-" || w == "RUN" || w == "$" || w == ">" || strings.HasSuffix(w, ":"):
			i++
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "=") && isAssignment(w):
			i++
		case hasPrefixCommand(name):
			operands := prefixes[name]
			i++
			for i < len(words) && strings.HasPrefix(words[i], "-") {
				if optionArgs[words[i]] {
					i++
				}
				i++
			}
			for i < len(words) && operands > 0 {
				i++
				operands--
			}
		default:
			return command{name: name, raw: w, args: words[i+1:]}, name != ""
		}
	}
	return command{}, false
}

func hasPrefixCommand(name string) bool {
	_, ok := prefixes[name]
	return ok
}

// isAssignment reports whether w is NAME=value.
func isAssignment(w string) bool {
	name, _, _ := strings.Cut(w, "=")
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// commandName is the command a word names: without quotes, substitution
// and grouping marks, directory and .exe, lower-case.
func commandName(w string) string {
	w = strings.TrimLeft(w, "\"'`({!$<")
	w = strings.TrimRight(w, "\"'`)};")
	w = strings.ToLower(w)
	if w != "." && w != "/" {
		w = path.Base(w)
	}
	w = strings.TrimSuffix(w, ".exe")
	if strings.HasPrefix(w, "python3.") {
		w = "python3"
	}
	return w
}

// containsAnyFold reports whether s holds one of words (lower-case
// ASCII), ignoring ASCII case, in one pass over s.
func containsAnyFold(s string, words []string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // lower-case for letters; words start with letters
		for _, w := range words {
			if c == w[0] && len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w) {
				return true
			}
		}
	}
	return false
}
