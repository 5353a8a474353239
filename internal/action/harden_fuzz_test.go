package action

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/optr-dev/optr/internal/action/actiontest"
)

// runnerLines splits a log the way the runner reads it: lines end at LF,
// CR or CRLF (.NET ReadLine).
func runnerLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
}

// commandsOutsideStop returns every line the runner would run as a
// workflow command, following ::stop-commands::<token> / ::<token>::.
func commandsOutsideStop(log string) []string {
	var out []string
	stopped := ""
	for _, line := range runnerLines(log) {
		l := strings.TrimLeftFunc(line, unicode.IsSpace)
		if stopped != "" {
			if strings.EqualFold(strings.TrimRightFunc(l, unicode.IsSpace), "::"+stopped+"::") {
				stopped = ""
				out = append(out, "resume")
			}
			continue
		}
		if tok, ok := strings.CutPrefix(l, "::stop-commands::"); ok {
			stopped = strings.TrimSpace(tok)
			out = append(out, "stop")
			continue
		}
		if strings.HasPrefix(l, "::") || strings.HasPrefix(l, "##[") {
			out = append(out, l)
		}
	}
	return out
}

// Untrusted text written through the log never issues a workflow command
// and never ends its stop-commands block early, however it is built.
func FuzzLogSanitiser(f *testing.F) {
	for _, s := range []string{"plain", "::set-output name=x::y", "a\r::add-mask::x", "  ::error::x\n", "##[group]x", "::stop-commands::abc\n::abc::\n::warning::x", "::OPTR-", "\x00::\u2028::x"} {
		f.Add("label", s)
	}
	f.Fuzz(func(t *testing.T, label, text string) {
		for name, write := range map[string]func(*Log){
			"Untrusted": func(l *Log) { l.Untrusted(label, text) },
			"Infof":     func(l *Log) { l.Infof("%s", text) },
		} {
			var buf bytes.Buffer
			write(NewLog(&buf, func(string) string { return "" }))
			cmds := commandsOutsideStop(buf.String())
			if len(cmds) == 0 {
				continue // plain text, no block needed
			}
			if !slices.Equal(cmds, []string{"stop", "resume"}) {
				t.Fatalf("%s(%q, %q) let the runner see %q in:\n%s", name, label, text, cmds, buf.String())
			}
			if last := runnerLines(buf.String()); !strings.HasPrefix(strings.TrimSpace(last[len(last)-1]), "::optr-") {
				t.Fatalf("%s: the block was not ended by the last line:\n%s", name, buf.String())
			}
		}
	})
}

// parseOutputs reads a GITHUB_OUTPUT file the way the runner does, each
// name with the values set for it, in order.
func parseOutputs(t *testing.T, data string) map[string][]string {
	t.Helper()
	parsed, err := actiontest.ParseOutputs(data)
	if err != nil {
		t.Fatalf("the runner would fail on the outputs file: %v\n%s", err, data)
	}
	out := map[string][]string{}
	for _, o := range parsed {
		out[o.Name] = append(out[o.Name], o.Value)
	}
	return out
}

// Whatever value is set, the file holds exactly the outputs Set accepted,
// with their values: no value can end its heredoc early or forge another
// output.
func FuzzOutputsWriter(f *testing.F) {
	f.Add("status", "completed", "x\nghadelimiter_1\nstatus<<EOF\nfailed\nEOF")
	f.Add("selected-agent", "a\r\nb", "EOF\n")
	f.Fuzz(func(t *testing.T, name, v1, v2 string) {
		path := filepath.Join(t.TempDir(), "out")
		o, err := NewOutputs(path)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{}
		for _, v := range []string{v1, v2} {
			if strings.Contains(v, "\r") {
				continue // the runner rewrites CR; not an injection
			}
			if err := o.Set(name, v); err != nil {
				continue
			}
			want[name] = append(want[name], v)
		}
		data, _ := os.ReadFile(path)
		got := parseOutputs(t, string(data))
		if len(want) == 0 {
			if len(data) != 0 {
				t.Fatalf("nothing accepted, file holds %q", data)
			}
			return
		}
		if len(got) != 1 || !slices.Equal(got[name], want[name]) {
			t.Fatalf("outputs %q, want %q; file:\n%s", got, want, data)
		}
	})
}

// INPUT_* values are read without a panic, and what LoadInputs accepts is
// what the contract allows.
func FuzzInputs(f *testing.F) {
	f.Add("auto", "true", ".optr", " intent ")
	f.Add("ABORT", "yes", "../x", "")
	f.Fuzz(func(t *testing.T, command, commit, datalake, intent string) {
		env := map[string]string{"INPUT_COMMAND": command, "INPUT_COMMIT": commit, "INPUT_DATALAKE": datalake, "INPUT_INTENT": intent, "INPUT_GITHUB-TOKEN": intent}
		in, err := LoadInputs(func(k string) string { return env[k] })
		if err != nil {
			return
		}
		if !slices.Contains(commandValues, in.Command) {
			t.Fatalf("command %q accepted", in.Command)
		}
		if in.Intent != strings.TrimSpace(in.Intent) || in.Datalake == "" {
			t.Fatalf("inputs not trimmed or defaulted: %+v", in)
		}
		names, rejected := SplitConstraints(intent)
		for _, n := range names {
			if n == "" || strings.ContainsAny(n, ",\n`") {
				t.Fatalf("constraint name %q from %q", n, intent)
			}
		}
		_ = rejected
	})
}
