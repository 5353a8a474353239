package docs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/testkit/demotest"
)

// How a command block of the docs is checked.
const (
	// run: the block runs as written, with sh -e, in a copy of the offline
	// demo (testdata/demo) with the built optr on PATH; `go run ./cmd/optr`
	// is that binary. Every command must succeed.
	howRun = "run"
	// parse: each optr command of the block is run with --help added, so
	// its command, subcommand and flags must be ones the binary has and its
	// flag values must parse; nothing else of the block runs.
	howParse = "parse"
	// none: the block is not run; the entry says why.
	howNone = "none"
)

// commandBlock says how one ```sh block of README.md or docs/*.md is
// checked. A block is found by its file and a text it holds; an entry
// that matches no block, or a block no entry matches, fails the test, so
// the table follows the docs.
type commandBlock struct {
	file, holds string
	how         string
	// session names the blocks of one file that run one after the other in
	// the same directory, as the text between them reads.
	session string
	// before runs before the block (sh -e, optr on PATH), as the text
	// before it supposes: the runs that made a ledger.
	before string
	// standIns replace a line of the block (a comment such as "# … more
	// runs …") with commands that do what it says.
	standIns map[string]string
	// skip are lines of the block that do not run here, each with the
	// reason.
	skip map[string]string
	// env is the environment the block runs with, as the text around it
	// says the user's is.
	env []string
	// programs are put on PATH as programs that exit 0: what the text
	// supposes the user has installed.
	programs []string
	// fake: the block runs with an OpenAI fake's base URL in
	// OPENAI_BASE_URL, its key the one the block exports.
	fake bool
	// reason says why a block is only parsed or not run at all.
	reason string
}

// demoRun is a run of the offline demo: one more ledger entry.
const demoRun = "optr run --config testdata/demo/optr.yml --intent 'one more run' >/dev/null\n"

var commandBlocks = []commandBlock{
	{file: "README.md", holds: "go test -race -shuffle=on -count=1 ./...", how: howRun,
		skip: map[string]string{"go test -race -shuffle=on -count=1 ./...": "the suite this test is part of; .ci/run runs exactly this line"}},
	{file: "README.md", holds: "--pipeline research", how: howRun},
	{file: "README.md", holds: "gh label create optr", how: howNone,
		reason: "gh creates the label on GitHub; the workflow optr init writes runs the same command (cmd/optr's init test lints it)"},
	{file: "README.md", holds: "export OPENAI_API_KEY=sk-...", how: howRun, fake: true},
	{file: "README.md", holds: "optr init", how: howRun, before: "git init -q\n",
		skip:     map[string]string{"go install github.com/optr-dev/optr/cmd/optr@latest": "installs a release from the module proxy; the block runs the optr this tree builds"},
		env:      []string{"GH_TOKEN=gho_docs_test"},
		programs: []string{"copilot"}},
	{file: "docs/actions.md", holds: "optr plan --config testdata/demo/optr.yml", how: howRun},
	{file: "docs/benchmarks.md", holds: "go run ./cmd/optr-bench", how: howNone,
		reason: "the benchmarks take minutes and measure the machine they run on, which no test can judge"},
	{file: "docs/ledger-and-provenance.md", holds: "optr ledger keygen --origin optr/OWNER/REPO", how: howRun,
		session: "ledger", before: demoRun + demoRun},
	{file: "docs/ledger-and-provenance.md", holds: "> new.txt", how: howRun,
		session: "ledger", before: demoRun},
	{file: "docs/pipelines.md", holds: "--pipeline decide", how: howRun},
	{file: "docs/witnesses.md", holds: "optr ledger checkpoint > old.txt", how: howRun,
		before: demoRun, standIns: map[string]string{"# … more runs …": demoRun + demoRun}},
	{file: "docs/witnesses.md", holds: "optr ledger keygen --origin optr/OWNER/REPO", how: howRun},
	{file: "docs/witnesses.md", holds: "--witness-key 'witness.example/w1", how: howParse,
		reason: "the witnesses and their keys are examples: no checkpoint here is cosigned by them (internal/cli's witness tests verify cosigned checkpoints)"},
}

// TestDocsCommands checks every ```sh block of README.md and docs/*.md as
// commandBlocks says: most run as written against the offline demo or a
// fake provider, with the optr this tree builds.
func TestDocsCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds optr and runs the docs' commands; not in -short")
	}
	used := make([]int, len(commandBlocks))
	type found struct {
		entry int
		block fence
	}
	var blocks []found
	for _, file := range docFiles(t) {
		for _, f := range fences(t, file, readRoot(t, file)) {
			if f.Lang != "sh" {
				continue
			}
			match := -1
			for i, e := range commandBlocks {
				if e.file == file && strings.Contains(f.Text, e.holds) {
					if match >= 0 {
						t.Errorf("%s:%d: entries %q and %q both match the block", file, f.Line, commandBlocks[match].holds, e.holds)
					}
					match = i
					used[i]++
				}
			}
			if match < 0 {
				t.Errorf("%s:%d: a ```sh block no entry of commandBlocks checks: say how it runs there\n%s", file, f.Line, f.Text)
				continue
			}
			blocks = append(blocks, found{match, f})
		}
	}
	for i, e := range commandBlocks {
		if used[i] != 1 {
			t.Errorf("commandBlocks entry %s %q matches %d blocks, want 1: update the table", e.file, e.holds, used[i])
		}
	}

	bin := buildOptr(t)
	sessions := map[string]string{} // session → its directory
	for _, b := range blocks {
		e := commandBlocks[b.entry]
		name := fmt.Sprintf("%s:%d", e.file, b.block.Line)
		switch e.how {
		case howNone:
			if e.reason == "" {
				t.Errorf("%s: not run, and the entry does not say why", name)
			}
			t.Logf("%s: not run: %s", name, e.reason)
		case howParse:
			if e.reason == "" {
				t.Errorf("%s: only parsed, and the entry does not say why", name)
			}
			parseCommands(t, name, bin, b.block.Text)
		case howRun:
			dir, ok := sessions[e.session]
			if !ok || e.session == "" {
				dir = t.TempDir()
				demotest.Copy(t, dir)
				sessions[e.session] = dir
			}
			env := slices.Clone(e.env)
			path := []string{filepath.Dir(bin)}
			if len(e.programs) > 0 {
				programs := t.TempDir()
				for _, p := range e.programs {
					if err := os.WriteFile(filepath.Join(programs, p), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				path = append(path, programs)
			}
			var fake *llmtest.Server
			if e.fake {
				fake = llmtest.NewOpenAI(t)
				key := regexp.MustCompile(`OPENAI_API_KEY=(\S+)`).FindStringSubmatch(b.block.Text)
				if key == nil {
					t.Fatalf("%s: a fake provider, but the block exports no OPENAI_API_KEY", name)
				}
				fake.SetKey(key[1])
				env = append(env, "OPENAI_BASE_URL="+fake.URL)
			}
			script, err := e.script(b.block.Text)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if e.before != "" {
				runScript(t, name+" (what the text before it supposes)", path, dir, env, e.before)
			}
			runScript(t, name, path, dir, env, script)
			if fake != nil && len(fake.Requests()) == 0 {
				t.Errorf("%s: ran without asking the fake provider anything", name)
			}
		default:
			t.Errorf("%s: unknown way %q", name, e.how)
		}
	}
}

// script is the block's text as it runs: stand-ins put in, skipped lines
// left out; each must match a line of the block.
func (e commandBlock) script(text string) (string, error) {
	lines := strings.Split(text, "\n")
	for line, with := range e.standIns {
		i := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == line })
		if i < 0 {
			return "", fmt.Errorf("the stand-in's line %q is not in the block", line)
		}
		lines[i] = with
	}
	for line, why := range e.skip {
		i := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == line })
		if i < 0 {
			return "", fmt.Errorf("the skipped line %q is not in the block", line)
		}
		if why == "" {
			return "", fmt.Errorf("the skipped line %q has no reason", line)
		}
		lines[i] = ": " + strings.ReplaceAll(line, "'", "") // keeps the line count
	}
	return strings.Join(lines, "\n"), nil
}

// goShim makes `go run ./cmd/optr ARGS` the built optr, and refuses any
// other go command: a block runs nothing but optr and the shell.
const goShim = `go() {
	if [ "$1" = run ] && [ "$2" = ./cmd/optr ]; then shift 2; optr "$@"; return; fi
	echo "docs test: 'go $*' is not run here; give the block an entry that says why" >&2
	return 1
}
`

// runScript runs script with sh -e in dir: path's directories (the built
// optr's first) before the test's PATH, a HOME of its own, no other
// variable of the test's environment, plus env.
func runScript(t *testing.T, name string, path []string, dir string, env []string, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-e", "-c", goShim+script)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"PATH=" + strings.Join(append(path, os.Getenv("PATH")), string(os.PathListSeparator)),
		"HOME=" + t.TempDir(),
		"TMPDIR=" + t.TempDir(),
	}, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("%s: the block does not run as written: %v\n--- block\n%s\n--- output\n%s", name, err, script, out)
	}
}

// optrLine finds the optr commands of a shell text: "optr" (or `go run
// ./cmd/optr`) at the start of a line or after a pipe or &&, up to the end
// of the command.
var optrLine = regexp.MustCompile(`(?m)(?:^|&&|\|)\s*(?:go run \./cmd/)?optr\s+([^&|#>\n]*)`)

// parseCommands runs each optr command of text with --help added: the
// binary parses its flags and prints the help, and exits 0 only when the
// command, subcommand and flags exist and their values parse.
func parseCommands(t *testing.T, name, bin, text string) {
	t.Helper()
	joined := strings.ReplaceAll(text, "\\\n", " ")
	ms := optrLine.FindAllStringSubmatch(joined, -1)
	if len(ms) == 0 {
		t.Errorf("%s: only parsed, but it holds no optr command", name)
	}
	for _, m := range ms {
		script := "exec optr " + m[1] + " --help"
		cmd := exec.Command("sh", "-e", "-c", script)
		cmd.Env = []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + t.TempDir()}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: optr does not take %q: %v\n%s", name, "optr "+m[1], err, out)
		}
	}
}

// TestMain removes the optr buildOptr built.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtOptr != "" {
		os.RemoveAll(filepath.Dir(builtOptr))
	}
	os.Exit(code)
}

var (
	builtOnce sync.Once
	builtOptr string
	builtErr  error
)

// buildOptr builds cmd/optr from this tree once for the package's tests
// and returns the binary's path, named optr in a directory of its own.
func buildOptr(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	builtOnce.Do(func() {
		dir, err := os.MkdirTemp("", "optr-docs-")
		if err != nil {
			builtErr = err
			return
		}
		builtOptr = filepath.Join(dir, "optr")
		cmd := exec.Command("go", "build", "-o", builtOptr, "./cmd/optr")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			builtErr = fmt.Errorf("go build ./cmd/optr: %v\n%s", err, out)
		}
	})
	if builtErr != nil {
		t.Fatal(builtErr)
	}
	return builtOptr
}

// blockLangs are the languages a fenced block of the docs may say it is:
// sh (TestDocsCommands runs it), yaml (TestDocsYAML checks it), text
// (output, file layouts, synopses: TestDocsSynopses checks the synopses).
var blockLangs = []string{"sh", "yaml", "text"}

// TestDocsBlocksSayWhatTheyAre: every fenced block of README.md and
// docs/*.md names its language, one the tests check as what it is.
func TestDocsBlocksSayWhatTheyAre(t *testing.T) {
	t.Parallel()
	for _, file := range docFiles(t) {
		for _, f := range fences(t, file, readRoot(t, file)) {
			if !slices.Contains(blockLangs, f.Lang) {
				t.Errorf("%s:%d: a block of language %q; say what it is: %s", file, f.Line-1, f.Lang, strings.Join(blockLangs, ", "))
			}
		}
	}
}

// synopsisSub splits a synopsis line's alternatives that are subcommands:
// "checkpoint [--origin O] | prove --seq N".
var synopsisSub = regexp.MustCompile(`\|\s+([a-z]+)(\s|$)`)

// synopsisFlag is a flag named in a synopsis.
var synopsisFlag = regexp.MustCompile(`--[a-z][a-z-]*`)

// TestDocsSynopses: in a ```text block, each command written as "optr
// COMMAND [SUBCOMMAND] …" (continued on indented lines) names only flags
// that command has: its --help lists each of them.
func TestDocsSynopses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds optr; not in -short")
	}
	bin := buildOptr(t)
	n := 0
	for _, file := range docFiles(t) {
		for _, f := range fences(t, file, readRoot(t, file)) {
			if f.Lang != "text" {
				continue
			}
			for _, cmd := range synopses(f.Text) {
				n++
				args := append(slices.Clone(cmd.words), "--help")
				out, err := exec.Command(bin, args...).CombinedOutput()
				if err != nil {
					t.Errorf("%s:%d: optr %s: %v\n%s", file, f.Line, strings.Join(args, " "), err, out)
					continue
				}
				_, flags, _ := strings.Cut(string(out), "\nFlags:\n")
				for _, fl := range synopsisFlag.FindAllString(cmd.text, -1) {
					if !regexp.MustCompile(regexp.QuoteMeta(fl) + `\b[^-]`).MatchString(flags) {
						t.Errorf("%s:%d: the synopsis of optr %s names %s, which 'optr %s --help' does not list", file, f.Line, strings.Join(cmd.words, " "), fl, strings.Join(cmd.words, " "))
					}
				}
			}
		}
	}
	if n == 0 {
		t.Error("no synopsis found in the docs: the reading of them is broken")
	}
}

// synopsis is one command of a synopsis: its words after optr (the
// command, and the ledger's or config's subcommand) and its text.
type synopsis struct {
	words []string
	text  string
}

// synopses reads the commands of a text block's synopsis lines: a line
// starting "optr " and the indented lines after it.
func synopses(text string) []synopsis {
	var groups []string
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "optr "):
			groups = append(groups, line)
		case len(groups) > 0 && strings.HasPrefix(line, " ") && strings.TrimSpace(line) != "":
			groups[len(groups)-1] += " " + strings.TrimSpace(line)
		default:
			if len(groups) > 0 && !strings.HasPrefix(groups[len(groups)-1], "\x00") {
				groups = append(groups, "\x00")
			}
		}
	}
	var out []synopsis
	for _, g := range groups {
		fields := strings.Fields(g)
		if len(fields) < 2 || fields[0] != "optr" || strings.HasPrefix(fields[1], "-") {
			continue
		}
		cmd := fields[1]
		if cmd != "ledger" && cmd != "config" {
			out = append(out, synopsis{[]string{cmd}, g})
			continue
		}
		rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(g, "optr")), cmd))
		starts := []int{0}
		ends := []int{}
		for _, m := range synopsisSub.FindAllStringSubmatchIndex(rest, -1) {
			ends = append(ends, m[0])
			starts = append(starts, m[2])
		}
		ends = append(ends, len(rest))
		for i, start := range starts {
			alt := rest[start:ends[i]]
			if f := strings.Fields(alt); len(f) > 0 {
				out = append(out, synopsis{[]string{cmd, f[0]}, alt})
			}
		}
	}
	return out
}
