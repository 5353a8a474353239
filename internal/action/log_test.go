package action

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// runnerCommand is a workflow command the runner would act on.
type runnerCommand struct {
	Name, Data string
}

// knownCommands are the commands the runner registers.
var knownCommands = map[string]bool{
	"add-mask": true, "add-matcher": true, "add-path": true, "debug": true, "echo": true,
	"endgroup": true, "error": true, "group": true, "notice": true, "remove-matcher": true,
	"save-state": true, "set-env": true, "set-output": true, "stop-commands": true, "warning": true,
}

var v1CommandRE = regexp.MustCompile(`^##\[([^\] ]+)[^\]]*\](.*)$`)

// runnerCommands reads a step's log the way the runner's
// ActionCommandManager does and returns the commands it would run, with
// ::stop-commands:: honoured: while stopped, only ::<token>:: (compared
// without case) is acted on. Lines end at LF, CR or CRLF, as .NET's ReadLine
// ends them; leading blanks are skipped.
func runnerCommands(log string) []runnerCommand {
	var out []runnerCommand
	stopToken := ""
	for _, line := range strings.FieldsFunc(log, func(r rune) bool { return r == '\n' || r == '\r' }) {
		line = strings.TrimLeftFunc(line, unicode.IsSpace)
		var name, data string
		switch {
		case strings.HasPrefix(line, "::"):
			rest := line[2:]
			end := strings.Index(rest, "::")
			if end < 0 {
				continue
			}
			name, _, _ = strings.Cut(rest[:end], " ")
			data = unescapeData(rest[end+2:])
		case v1CommandRE.MatchString(line):
			m := v1CommandRE.FindStringSubmatch(line)
			name, data = m[1], m[2]
		default:
			continue
		}
		if stopToken != "" {
			if strings.EqualFold(name, stopToken) {
				out = append(out, runnerCommand{Name: "resume", Data: name})
				stopToken = ""
			}
			continue
		}
		if !knownCommands[strings.ToLower(name)] {
			continue
		}
		if strings.EqualFold(name, "stop-commands") {
			stopToken = data
		}
		out = append(out, runnerCommand{Name: name, Data: data})
	}
	return out
}

func unescapeData(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%").Replace(s)
}

// hostile is untrusted text that tries every way out of the block.
const hostile = "::error::x\n" +
	"::stop-commands::abc\n" +
	"::abc::\n" +
	"##[error]y\n" +
	"  \t::add-mask::z\r::warning::w\r\n" +
	"::set-output name=status::hacked\n" +
	"::STOP-COMMANDS::again\n" +
	"::endgroup::"

func TestUntrustedCannotIssueCommands(t *testing.T) {
	t.Parallel()
	// The emulator must see the commands in the raw text, or this test
	// could not fail.
	if raw := runnerCommands(hostile); len(raw) < 3 || raw[0] != (runnerCommand{"error", "x"}) {
		t.Fatalf("the runner emulator misses the hostile commands: %+v", raw)
	}
	var buf bytes.Buffer
	l := NewLog(&buf, mapEnv(nil))
	l.Untrusted("issue body", hostile)
	got := runnerCommands(buf.String())
	if len(got) != 2 || got[0].Name != "stop-commands" || got[1].Name != "resume" || !strings.EqualFold(got[0].Data, got[1].Data) {
		t.Fatalf("the runner would run %+v; want only the stop and the resume\nlog:\n%s", got, buf.String())
	}
	if !strings.Contains(buf.String(), "issue body:\n"+hostile+"\n") {
		t.Errorf("the text was not logged as it is:\n%s", buf.String())
	}
	l.Error("after")
	if got := runnerCommands(buf.String()); got[len(got)-1] != (runnerCommand{"error", "after"}) {
		t.Errorf("commands do not work again after the block: %+v", got)
	}
}

// TestUntrustedTokenIsFresh replays the token of an earlier block (anyone
// can read it in the log) inside a later block.
func TestUntrustedTokenIsFresh(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := NewLog(&buf, mapEnv(nil))
	l.Untrusted("first", "hello")
	first := runnerCommands(buf.String())[0].Data
	l.Untrusted("second", "::"+first+"::\n::error::pwned\n::"+strings.ToUpper(first)+"::\n::error::pwned")
	got := runnerCommands(buf.String())
	if len(got) != 4 {
		t.Fatalf("the runner would run %+v\nlog:\n%s", got, buf.String())
	}
	if got[2].Data == first {
		t.Fatal("the second block reused the first block's token")
	}
	for _, c := range got {
		if c.Name == "error" {
			t.Fatalf("an untrusted error annotation got through: %+v", got)
		}
	}
}

func TestStopTokenAvoidsText(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 100 {
		tok := stopToken("text")
		if !regexp.MustCompile(`^optr-[0-9a-f]{32}$`).MatchString(tok) {
			t.Fatalf("token %q", tok)
		}
		if seen[tok] {
			t.Fatalf("token %q drawn twice", tok)
		}
		seen[tok] = true
	}
	for tok := range seen {
		if text := "x" + strings.ToUpper(tok) + "y"; strings.Contains(strings.ToLower(text), stopToken(text)) {
			t.Fatal("stopToken returned a token the text contains")
		}
	}
}

func TestMask(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := NewLog(&buf, mapEnv(map[string]string{
		"INPUT_GITHUB-TOKEN": "ghs_hyphen",
		"OPENAI_API_KEY":     "sk-100%real",
		"MY_KEY":             "custom-secret",
		"GITHUB_TOKEN":       "  ",
	}))
	l.MaskEnv("MY_KEY", "UNSET_KEY")
	l.Mask("")
	l.Mask("-----BEGIN KEY-----\nAAAAAAAAAAAAAAAA\n}\n-----END KEY-----")
	l.Infof("hello")
	want := []runnerCommand{
		{"add-mask", "ghs_hyphen"},
		{"add-mask", "sk-100%real"},
		{"add-mask", "custom-secret"},
		{"add-mask", "-----BEGIN KEY-----\nAAAAAAAAAAAAAAAA\n}\n-----END KEY-----"},
		{"add-mask", "-----BEGIN KEY-----"},
		{"add-mask", "AAAAAAAAAAAAAAAA"},
		{"add-mask", "-----END KEY-----"},
	}
	if diff := cmp.Diff(want, runnerCommands(buf.String())); diff != "" {
		t.Errorf("masks (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(buf.String(), "::add-mask::ghs_hyphen\n") || !strings.HasSuffix(buf.String(), "\nhello\n") {
		t.Errorf("log:\n%s", buf.String())
	}
}

func TestAnnotationsAreEscaped(t *testing.T) {
	t.Parallel()
	msgs := []string{"plain", "50% done", "two\nlines\r\n::error::injected", "%0A stays literal", ":: colons :: inside"}
	var buf bytes.Buffer
	l := NewLog(&buf, mapEnv(nil))
	var want []runnerCommand
	for _, m := range msgs {
		l.Notice(m)
		l.Warning(m)
		l.Error(m)
		want = append(want, runnerCommand{"notice", m}, runnerCommand{"warning", m}, runnerCommand{"error", m})
	}
	if diff := cmp.Diff(want, runnerCommands(buf.String())); diff != "" {
		t.Errorf("annotations as the runner reads them (-want +got):\n%s", diff)
	}
	if n := strings.Count(buf.String(), "\n"); n != len(want) {
		t.Errorf("%d lines for %d annotations:\n%s", n, len(want), buf.String())
	}
}

func TestInfofAndGroups(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := NewLog(&buf, mapEnv(nil))
	l.Group("agents")
	l.Infof("agent %s finished in %dms", "codex", 1200)
	l.Infof("agent said: %s", "fine\n  ::error::pwned")
	l.Infof("##[warning]%s", "also wrapped")
	l.EndGroup()
	got := runnerCommands(buf.String())
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"group", "stop-commands", "resume", "stop-commands", "resume", "endgroup"}, names); diff != "" {
		t.Errorf("commands (-want +got):\n%s\nlog:\n%s", diff, buf.String())
	}
	if !strings.Contains(buf.String(), "::group::agents\nagent codex finished in 1200ms\n") {
		t.Errorf("log:\n%s", buf.String())
	}
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("stdout closed")
}

func TestLogWriteErrorsDoNotPanic(t *testing.T) {
	t.Parallel()
	w := &failingWriter{}
	l := NewLog(w, mapEnv(nil))
	l.Mask("secret-value")
	l.Error("x")
	l.Untrusted("x", "y")
	l.Infof("z")
	if err := l.Err(); err == nil || !strings.Contains(err.Error(), "stdout closed") {
		t.Fatalf("Err() = %v", err)
	}
	if w.n != 1 {
		t.Errorf("%d writes after the first failure, want none", w.n-1)
	}
}

func TestLogConcurrentBlocksStayWhole(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := NewLog(&buf, mapEnv(nil))
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			l.Untrusted(fmt.Sprintf("agent-%d", i), hostile)
			l.Error(fmt.Sprintf("real %d", i))
		})
	}
	wg.Wait()
	errs := 0
	for _, c := range runnerCommands(buf.String()) {
		switch c.Name {
		case "error":
			if !strings.HasPrefix(c.Data, "real ") {
				t.Fatalf("untrusted annotation got through: %+v", c)
			}
			errs++
		case "stop-commands", "resume":
		default:
			t.Fatalf("unexpected command %+v", c)
		}
	}
	if errs != 20 {
		t.Errorf("%d of 20 real annotations seen", errs)
	}
}
