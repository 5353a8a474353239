package preset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

// The streams in testdata were written by the real CLIs (the releases the
// presets name) against fake model servers that had each write hello.txt
// with a tool, then answer "Done: wrote hello.txt".
func TestReaderReadsTheRealStreams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		f    Format
		want Session
	}{
		{"claude-code.jsonl", ClaudeStream, Session{
			Format: ClaudeStream, Answer: "Done: wrote hello.txt", Model: "claude-opus-5-5",
			Turns: 3, ToolCalls: 2, Tools: map[string]int{"Read": 1, "Write": 1},
			Usage: &Usage{InputTokens: 200, OutputTokens: 40}, CostUSD: ptr(0.0016), Events: 7,
		}},
		{"codex.jsonl", CodexEvents, Session{
			Format: CodexEvents, Answer: "Done: wrote hello.txt",
			Turns: 1, ToolCalls: 1, Tools: map[string]int{"command_execution": 1},
			Usage: &Usage{InputTokens: 200, OutputTokens: 40, CachedTokens: 20}, Events: 7,
		}},
		{"gemini-cli.jsonl", GeminiStream, Session{
			Format: GeminiStream, Answer: "Done: wrote hello.txt", Model: "gemini-x",
			Turns: 2, ToolCalls: 1, Tools: map[string]int{"write_file": 1},
			Usage: &Usage{InputTokens: 200, OutputTokens: 50, CachedTokens: 20}, Events: 6,
		}},
		{"copilot-cli.jsonl", CopilotEvents, Session{
			Format: CopilotEvents, Answer: "Done: wrote hello.txt", Model: "gpt-5",
			Turns: 2, ToolCalls: 1, Tools: map[string]int{"exec_command": 1}, Events: 21,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			// Written in pieces that cut lines anywhere, as a pipe does.
			for _, size := range []int{1, 7, 4096, len(b)} {
				r := NewReader(tt.f)
				for p := b; len(p) > 0; {
					n := min(size, len(p))
					if k, err := r.Write(p[:n]); k != n || err != nil {
						t.Fatalf("Write = %d, %v", k, err)
					}
					p = p[n:]
				}
				if diff := cmp.Diff(tt.want, r.Close(), cmp.AllowUnexported(Session{})); diff != "" {
					t.Fatalf("written %d bytes at a time: session (-want +got):\n%s", size, diff)
				}
			}
		})
	}
}

func TestReaderErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		f      Format
		stream string
		want   string
	}{
		{"claude", ClaudeStream, `{"type":"result","subtype":"success","is_error":true,"result":"API Error: 401 invalid x-api-key","num_turns":1}`, "success: API Error: 401 invalid x-api-key"},
		{"claude without a result", ClaudeStream, `{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["out of memory"]}`, "error_during_execution: : out of memory"},
		{"codex", CodexEvents, `{"type":"error","message":"Reconnecting... 1/5"}` + "\n" + `{"type":"turn.failed","error":{"message":"unexpected status 401"}}`, "unexpected status 401"},
		{"gemini", GeminiStream, `{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: quota]"},"stats":{"total_tokens":0}}`, "unknown: [API Error: quota]"},
		{"copilot", CopilotEvents, `{"type":"session.error","data":{"errorType":"authentication","message":"no provider key"}}`, "authentication: no provider key"},
	}
	for _, tt := range tests {
		r := NewReader(tt.f)
		_, _ = r.Write([]byte(tt.stream)) // the last line without its newline
		if got := r.Close().Error; got != tt.want {
			t.Errorf("%s: Error = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// What is not the stream's JSON is counted, never a failure: a CLI's
// plain text, a line past MaxLine (not kept whole), broken JSON.
func TestReaderOtherLines(t *testing.T) {
	t.Parallel()
	r := NewReader(CodexEvents)
	huge := `{"type":"item.completed","item":{"type":"agent_message","text":"` + strings.Repeat("x", MaxLine) + `"}}`
	for _, line := range []string{"Reading prompt from stdin...", huge, `{"type":`, "[1,2]",
		`{"type":"item.completed","item":{"type":"agent_message","text":"kept"}}`} {
		_, _ = r.Write([]byte(line + "\n"))
		if cap(r.line) > MaxLine+64<<10 {
			t.Fatalf("the reader holds %d bytes for one line", cap(r.line))
		}
	}
	s := r.Close()
	if s.Events != 1 || s.Other != 4 || s.Answer != "kept" {
		t.Fatalf("session = %+v, want 1 event, 4 other lines, the answer kept", s)
	}
}

func TestToolNamesAreBounded(t *testing.T) {
	t.Parallel()
	r := NewReader(CopilotEvents)
	for i := range 1000 {
		_, _ = r.Write([]byte(`{"type":"tool.execution_start","data":{"toolName":"t` + strings.Repeat("x", i%100) + `"}}` + "\n"))
	}
	s := r.Close()
	if s.ToolCalls != 1000 || len(s.Tools) > maxToolNames {
		t.Fatalf("ToolCalls %d, %d names; want 1000 calls, at most %d names", s.ToolCalls, len(s.Tools), maxToolNames)
	}
	if names := s.ToolNames(); len(names) != len(s.Tools) || s.Tools[names[0]] < s.Tools[names[len(names)-1]] {
		t.Fatalf("ToolNames = %v", names)
	}
}

func FuzzReader(f *testing.F) {
	for _, name := range []string{"claude-code.jsonl", "codex.jsonl", "gemini-cli.jsonl", "copilot-cli.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, p := range All() {
			r := NewReader(p.Format)
			_, _ = r.Write(b)
			s := r.Close()
			if s.Events < 0 || s.ToolCalls < 0 || len(s.Tools) > maxToolNames {
				t.Fatalf("%s: %+v", p.Name, s)
			}
		}
	})
}
