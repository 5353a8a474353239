package detect

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/patch"
	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/secretscan"
)

// Bounds of one scan (Builtin): its work and its list of findings, so that
// a result built to be slow to scan, or to hold a million findings, costs
// seconds and a short list, never a run's time or memory. Reaching the
// work bound is a finding: what was not scanned is not vouched for.
const (
	// maxHeuristicScan bounds the output the context rules read: the
	// token rules already ran over every byte of it, as redaction.
	maxHeuristicScan = 4 << 20
	// minBlob is the shortest run of base64 or hex characters in an
	// added line taken for an encoded blob: far longer than any hash, key
	// or identifier a change holds in the open.
	minBlob = 256
	// perRule is the most matches of one secret rule listed for one file
	// (or the output); the rest are said to exist.
	perRule = 20
	// maxFindings is the most findings a scan lists; the rest are counted.
	maxFindings = 200
	// defaultWork is the scan's work bound in secretscan.Work units
	// (about the bytes the rules' expressions read): a minute of one core
	// at worst, any change within the default limits scanned whole.
	defaultWork = 8 << 30
)

// Limits bound a scan; the zero Limits is the default.
type Limits struct {
	// Work bounds the secret rules' work (secretscan.Work units);
	// 0 means defaultWork.
	Work int64
	// Shared, when set, is the budget this scan spends from instead, with
	// the other scans of a run (Bound).
	Shared *secretscan.Work
}

// Builtin runs the built-in detectors — no LLM, always on — over π*'s
// output (as optr keeps it: redacted), read line by line from output so
// that an output of many MiB is never held whole, and its patch (as
// captured). It stops at ctx's end or its work bound, with a finding that
// says so.
func Builtin(ctx context.Context, output io.Reader, patch []byte) ([]Finding, error) {
	return BuiltinLimited(ctx, output, patch, Limits{})
}

// BuiltinLimited is Builtin within lim.
func BuiltinLimited(ctx context.Context, output io.Reader, change []byte, lim Limits) ([]Finding, error) {
	if lim.Work <= 0 {
		lim.Work = defaultWork
	}
	s := &scan{work: lim.Shared}
	if s.work == nil {
		s.work = secretscan.NewWork(ctx, lim.Work)
	}
	err := s.output(output)
	for _, f := range patch.Parse(change) {
		if ctx.Err() != nil {
			s.unfinished = true
			break
		}
		s.file(f)
	}
	return s.done(), err
}

// scan is one scan's findings and bounds.
type scan struct {
	work       *secretscan.Work
	found      []Finding
	more       int  // findings past maxFindings, counted
	unfinished bool // the work bound or the context ended the scan early
}

func (s *scan) add(f Finding) {
	if len(s.found) == maxFindings {
		s.more++
		return
	}
	s.found = append(s.found, f)
}

// done is the scan's findings, with what it could not list or scan said.
func (s *scan) done() []Finding {
	out := s.found
	if s.unfinished {
		out = append(out, Finding{DetectorScan, "unfinished", "", 0,
			"threat detection reached its bound (work or time) before it scanned everything; what it did not scan is not vouched for"})
	}
	if s.more > 0 {
		out = append(out, Finding{DetectorScan, "more-findings", "", 0, fmt.Sprintf("%d more findings are not listed", s.more)})
	}
	return out
}

// output finds secrets in π*'s output: the placeholders redaction left
// where a known secret or a token was (the agent printed it), and what
// gitleaks' context rules find in its first maxHeuristicScan bytes. It
// reads the output in pieces of at most 64 KiB, so that one line of many
// MiB is never held whole.
func (s *scan) output(output io.Reader) error {
	var head strings.Builder
	rd := bufio.NewReaderSize(output, 64<<10)
	var carry []byte // the start of a placeholder cut at a piece's end
	for n := 1; ; {
		piece, err := rd.ReadSlice('\n')
		if head.Len() < maxHeuristicScan {
			head.Write(piece[:min(len(piece), maxHeuristicScan-head.Len())])
		}
		text := string(append(carry, piece...))
		carry = carry[:0]
		if err == bufio.ErrBufferFull { // a long line: keep what may start a placeholder
			if i := strings.LastIndexByte(text, '['); i >= 0 && len(text)-i < maxTag && !strings.Contains(text[i:], "]") {
				carry, text = append(carry, text[i:]...), text[:i]
			}
		}
		s.placeholders(text, n)
		if len(piece) > 0 && piece[len(piece)-1] == '\n' {
			n++
		}
		switch {
		case err == nil, err == bufio.ErrBufferFull:
		case err == io.EOF:
			s.placeholders(string(carry), n)
			s.secrets(head.String(), "", nil)
			return nil
		default:
			return fmt.Errorf("read π*'s output: %w", err)
		}
	}
}

// maxTag bounds a redaction placeholder's length, "[redacted:<rule>]".
const maxTag = 128

// placeholders reports the redaction placeholders in line n of the output.
func (s *scan) placeholders(line string, n int) {
	for rest := line; ; {
		i := strings.Index(rest, "[redacted")
		if i < 0 {
			return
		}
		rest = rest[i:]
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return
		}
		switch tag := rest[:end+1]; {
		case tag == redact.Placeholder:
			s.add(Finding{DetectorSecrets, "known-secret", "", n, "the value of one of optr's secret variables (redacted)"})
		case strings.HasPrefix(tag, "[redacted:") && len(tag) < maxTag:
			rule := tag[len("[redacted:") : len(tag)-1]
			s.add(Finding{DetectorSecrets, rule, "", n, "a token-shaped string (redacted)"})
		}
		rest = rest[end+1:]
	}
}

// secrets reports what gitleaks' rules find in text, of the file at p (""
// for the output). lines are the file's added lines, whose texts joined
// by line breaks are text; nil for the output, whose lines are counted.
func (s *scan) secrets(text, p string, lines []patch.Line) {
	sc := secretscan.FindLimited(text, p, secretscan.All, secretscan.Limits{PerRule: perRule, Work: s.work})
	s.unfinished = s.unfinished || sc.Unfinished
	line := lineCounter(text, lines)
	for _, m := range sc.Matches {
		s.add(Finding{DetectorSecrets, m.Rule, p, line(m.Start), "a secret by gitleaks' rule " + m.Rule})
	}
	for _, id := range sc.Capped {
		s.add(Finding{DetectorSecrets, id, p, 0, fmt.Sprintf("more matches of gitleaks' rule %s than the %d listed", id, perRule)})
	}
}

// lineCounter returns the line of each offset into text, asked for in
// increasing order (matches come by start): the output's own lines when
// lines is nil, else the numbers of the added lines text joins. Linear in
// text, whatever the number of matches.
func lineCounter(text string, lines []patch.Line) func(off int) int {
	at, n := 0, 1 // text[:at] holds n-1 line breaks
	return func(off int) int {
		if off < at { // not in order: count again
			at, n = 0, 1
		}
		n += strings.Count(text[at:off], "\n")
		at = off
		if lines == nil {
			return n
		}
		return lines[min(n-1, len(lines)-1)].N
	}
}

// file runs the detectors over one file of the patch. Every path is
// judged: gitleaks' allowlist of paths (lock files, gradlew, images)
// exempts a file from its context rules at most (secretscan.Find), from
// nothing else.
func (s *scan) file(f patch.File) {
	if kind := kindOf(f.Path); kind != "" {
		s.add(Finding{DetectorAutomation, kind, f.Path, 0, "the change touches " + kindNames[kind]})
	}
	s.symlink(f)
	s.modes(f)
	if f.Binary {
		s.add(Finding{DetectorBinary, "binary-file", f.Path, 0, "the change adds or changes a binary file, which a reviewer cannot read"})
	}
	for _, id := range secretscan.PathRules(f.Path) {
		s.add(Finding{DetectorSecrets, id, f.Path, 0, "a file of a kind that holds keys (gitleaks' rule " + id + ")"})
	}
	s.contents(f)
	if len(f.Added) == 0 || f.NewMode == patch.ModeSymlink {
		return
	}
	var text strings.Builder
	var fr fetchRun
	for _, l := range f.Added {
		text.WriteString(l.Text)
		text.WriteByte('\n')
		if n := longestBlob(l.Text); n >= minBlob {
			s.add(Finding{DetectorEncoded, "encoded-blob", f.Path, l.N, fmt.Sprintf("the change adds a run of %d base64 or hex characters, which can hide code or data", n)})
		}
		if fr.line(l.Text) {
			s.add(Finding{DetectorFetchRun, "fetch-and-run", f.Path, l.N, "the change fetches code from the network and runs it"})
		}
	}
	s.secrets(text.String(), f.Path, f.Added)
}

// symlink reports a symbolic link into a curated path: a .github that is a
// link is a workflow directory whose files a review of .github/ never
// shows.
func (s *scan) symlink(f patch.File) {
	if f.NewMode != patch.ModeSymlink || len(f.Added) == 0 {
		return
	}
	target := f.Added[0].Text
	resolved := path.Join(path.Dir(f.Path), target)
	if kind := kindOf(resolved); kind != "" {
		s.add(Finding{DetectorAutomation, "symlink", f.Path, 0, fmt.Sprintf("the change makes %s a symbolic link to %s: %s", f.Path, target, kindNames[kind])})
	}
}

// modes reports a file made executable, and an edit of one that was.
func (s *scan) modes(f patch.File) {
	switch {
	case f.NewMode == patch.ModeExecutable && f.New():
		s.add(Finding{DetectorExecutable, "executable-file", f.Path, 0, "the change adds an executable file (mode 100755)"})
	case f.NewMode == patch.ModeExecutable && f.OldMode != patch.ModeExecutable:
		s.add(Finding{DetectorExecutable, "executable-file", f.Path, 0, "the change makes a file executable (mode 100755)"})
	case f.NewMode == patch.ModeExecutable:
		s.add(Finding{DetectorExecutable, "executable-edit", f.Path, 0, "the change edits an executable file, which runs as it is wherever it is called"})
	}
}

// contents reports what the lines of a few kinds of file do: a
// package.json's scripts, go.mod's replace and toolchain, go generate
// directives, attributes that hide a file from review, submodule URLs.
func (s *scan) contents(f patch.File) {
	base := strings.ToLower(path.Base(f.Path))
	switch {
	case base == "package.json":
		if l, ok := packageScript(f.Shown); ok {
			s.add(Finding{DetectorAutomation, "package-scripts", f.Path, l.N, "the change adds or edits package.json scripts, which npm runs on install and build"})
		}
	case base == "go.mod":
		for _, l := range f.Added {
			if t := strings.TrimSpace(l.Text); strings.HasPrefix(t, "replace") || strings.HasPrefix(t, "toolchain") || strings.Contains(t, "=>") {
				s.add(Finding{DetectorAutomation, "go-mod-replace", f.Path, l.N, "the change adds a replace or toolchain directive to go.mod, which builds the module with other code"})
				break
			}
		}
	case strings.HasSuffix(base, ".go"):
		for _, l := range f.Added {
			if strings.HasPrefix(strings.TrimSpace(l.Text), "//go:generate") {
				s.add(Finding{DetectorAutomation, "go-generate", f.Path, l.N, "the change adds a //go:generate directive, a command go generate runs"})
			}
		}
	case base == ".gitattributes":
		for _, l := range f.Added {
			if reason := attributeEffect(l.Text); reason != "" {
				s.add(Finding{DetectorAutomation, "git-attributes", f.Path, l.N, reason})
			}
		}
	case f.Path == ".gitmodules":
		for _, l := range f.Added {
			if k, _, ok := strings.Cut(strings.TrimSpace(l.Text), "="); ok && strings.TrimSpace(k) == "url" {
				s.add(Finding{DetectorAutomation, "submodule-url", f.Path, l.N, "the change points a submodule at a URL, from which git fetches code"})
			}
		}
	}
}

// attributeEffect says what a .gitattributes line does that a review
// should see, "" for nothing of note.
func attributeEffect(line string) string {
	fields := strings.Fields(line)
	if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
		return ""
	}
	for _, a := range fields[1:] {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-!"), "=")
		switch name {
		case "filter", "diff", "merge", "textconv", "ident", "working-tree-encoding":
			if !strings.HasPrefix(a, "-") {
				return "the change sets the git attribute " + a + ", which runs a configured program or rewrites the file on checkout"
			}
		}
		switch {
		case a == "-diff", a == "binary", strings.HasPrefix(a, "linguist-generated"), strings.HasPrefix(a, "linguist-vendored"),
			strings.HasPrefix(a, "linguist-documentation"), a == "export-ignore":
			return "the change sets the git attribute " + a + ", which hides the file's changes from a review"
		}
	}
	return ""
}

// packageScript finds an added line of package.json that adds or edits a
// script: a line that opens scripts or names a lifecycle script; a line
// inside the scripts object, as the lines the patch shows around it tell;
// or, where they do not tell which object it is in, a "key": "value" line
// whose value is not a version range.
func packageScript(shown []patch.Line) (patch.Line, bool) {
	var keys []string // the objects the hunk opened that the line is in, innermost last
	top := false      // the hunk starts at the file's first line: outside keys is the top level
	for i, l := range shown {
		if i == 0 || l.N != shown[i-1].N+1 { // a hunk starts
			keys, top = nil, l.N == 1
		}
		t := strings.TrimSpace(l.Text)
		if l.Added {
			switch {
			case packageScriptRE.MatchString(t):
				return l, true
			case len(keys) > 0 && keys[len(keys)-1] == "scripts":
				return l, true
			case len(keys) == 0 && !top && looksLikeScript(t):
				return l, true // in an object the patch does not show
			}
		}
		switch m := objectOpenRE.FindStringSubmatch(t); {
		case m != nil && !strings.Contains(t, "}"):
			keys = append(keys, m[1])
		case strings.HasPrefix(t, "}") && len(keys) > 0:
			keys = keys[:len(keys)-1]
		case strings.HasPrefix(t, "{") && l.N == 1:
			top = true
		}
	}
	return patch.Line{}, false
}

// looksLikeScript reports whether a package.json line of unknown place is
// a "name": "value" whose value is not a version range nor one of the
// fields that are plain text.
func looksLikeScript(line string) bool {
	m := keyValueRE.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	key, value := m[1], m[2]
	if slices.Contains(plainFields, key) {
		return false
	}
	return !versionRE.MatchString(value)
}

// plainFields are package.json fields whose values are text, not commands.
var plainFields = []string{"name", "version", "description", "license", "author", "homepage", "main", "module", "types",
	"typings", "type", "browser", "private", "url", "email", "directory", "packageManager", "node", "npm", "yarn", "pnpm"}

var (
	// packageScriptRE: a line of package.json that opens or edits
	// scripts, lifecycle scripts included.
	packageScriptRE = lazyregexp.New(`"(scripts|(pre|post)?install|prepare|prepublish(Only)?|prepack|postpack)"\s*:`)
	// objectOpenRE: a line that opens an object: "key": {
	objectOpenRE = lazyregexp.New(`^"([^"]+)"\s*:\s*\{`)
	// keyValueRE: a line "key": "value".
	keyValueRE = lazyregexp.New(`^"([^"]+)"\s*:\s*"((?:[^"\\]|\\.)*)"`)
	// versionRE: a dependency's version range (semver ranges, tags,
	// workspace: and npm: aliases).
	versionRE = lazyregexp.New(`^(?:[\^~<>=v *xX|.\-0-9A-Za-z+]*[0-9xX*][\^~<>=v *xX|.\-0-9A-Za-z+]*|latest|next|beta|canary|workspace:[^ ]*|npm:[@/A-Za-z0-9._\-]+@[\^~<>=v *xX|.\-0-9A-Za-z+]*)$`)
)

// longestBlob is the length of the longest run of base64 or hex
// characters in line (an = or two of padding included): a hand-written
// scan, as an expression with a bound of minBlob repetitions compiles to
// a program that reads a long line far slower.
func longestBlob(line string) int {
	best, run := 0, 0
	for i := 0; i < len(line); i++ {
		if c := line[i]; c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-' {
			run++
			continue
		}
		if run > 0 {
			pad := 0
			for pad < 2 && i+pad < len(line) && line[i+pad] == '=' {
				pad++
			}
			best = max(best, run+pad)
			run = 0
		}
	}
	return max(best, run)
}
