package checkpoint

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/testkit/golden"

	"github.com/google/go-cmp/cmp"
)

func TestPrompt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", maxAnswerLen+10)
	tests := []struct {
		name    string
		input   string
		want    Decision
		asks    int      // how many times the option question is asked
		says    []string // what the output must contain
		wantErr error
	}{
		{
			name: "Enter takes the recommended option", input: "\n\n",
			want: Decision{Option: 1, Action: ActionProceed, Source: SourceTerminal}, asks: 1,
			says: []string{"Chose 1) Proceed."},
		},
		{
			name: "a number and a note", input: "2\nflaky schema, see #12\n",
			want: Decision{Option: 2, Action: ActionSkip, Note: "flaky schema, see #12", Source: SourceTerminal}, asks: 1,
		},
		{
			name: "invalid answers ask again", input: "x\n7\n0\n-1\n+3\nproceed\n3\n\n",
			want: Decision{Option: 3, Action: ActionAbort, Source: SourceTerminal}, asks: 7,
			says: []string{
				`"x" is not an option number: enter a number from 1 to 4, or press Enter for 1 (Proceed).`,
				"There is no option 7: enter a number from 1 to 4",
				"There is no option 0:",
				"There is no option -1:",
				`"+3" is not an option number`,
				`"proceed" is not an option number`,
			},
		},
		{
			name: "spaces and CRLF", input: "  4 \r\n  later \r\n",
			want: Decision{Option: 4, Action: ActionPause, Note: "later", Source: SourceTerminal}, asks: 1,
		},
		{
			name: "the input ends with a choice but no note", input: "2",
			want: Decision{Option: 2, Action: ActionSkip, Source: SourceTerminal}, asks: 1,
		},
		{
			name: "a line too long to be a number", input: long + "\n1\n" + long + "\n",
			want: Decision{Option: 1, Action: ActionProceed, Note: long[:maxAnswerLen], Source: SourceTerminal}, asks: 2,
			says: []string{"is not an option number"},
		},
		{name: "no input", input: "", asks: 1, wantErr: ErrNoAnswer},
		{name: "the input ends after invalid answers", input: "x\ny", asks: 2, wantErr: ErrNoAnswer, says: []string{`"y" is not an option number`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			got, err := Prompt(t.Context(), strings.NewReader(tt.input), &out, fixture(t))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Prompt error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Prompt (-want +got):\n%s", diff)
			}
			if n := strings.Count(out.String(), "Choose 1–4 [Enter = 1]: "); n != tt.asks {
				t.Errorf("asked %d times, want %d; output:\n%s", n, tt.asks, out.String())
			}
			for _, s := range tt.says {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output lacks %q; output:\n%s", s, out.String())
				}
			}
		})
	}
}

func TestPromptTranscript(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	if _, err := Prompt(t.Context(), strings.NewReader("9\n\nok\n"), &out, fixture(t)); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(out.String(), '\x1b') {
		t.Error("the context's escape sequence reached the terminal")
	}
	golden.Check(t, "prompt_transcript.golden", out.String())
}

// TestPromptConversation talks to Prompt the way a person does: it answers
// only once the question is on the screen.
func TestPromptConversation(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	type result struct {
		d   Decision
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := Prompt(t.Context(), inR, outW, fixture(t))
		outW.Close()
		done <- result{d, err}
	}()
	screen := bufio.NewReader(outR)
	waitFor := func(s string) {
		t.Helper()
		var seen strings.Builder
		for !strings.HasSuffix(seen.String(), s) {
			b, err := screen.ReadByte()
			if err != nil {
				t.Fatalf("waiting for %q: %v; saw:\n%s", s, err, seen.String())
			}
			seen.WriteByte(b)
		}
	}
	say := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s); err != nil {
			t.Fatal(err)
		}
	}
	waitFor("Choose 1–4 [Enter = 1]: ")
	say("five\n")
	waitFor("or press Enter for 1 (Proceed).\nChoose 1–4 [Enter = 1]: ")
	say("2\n")
	waitFor("Note (optional, Enter for none): ")
	say("the schema is wrong\n")
	go io.Copy(io.Discard, screen)
	r := <-done
	want := Decision{Option: 2, Action: ActionSkip, Note: "the schema is wrong", Source: SourceTerminal}
	if r.err != nil || r.d != want {
		t.Errorf("Prompt = %+v, %v; want %+v", r.d, r.err, want)
	}
}

func TestPromptCancel(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()
	defer inW.Close() // ends the read Prompt leaves behind
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, err := Prompt(ctx, inR, io.Discard, fixture(t))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Prompt after cancel = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Prompt took %v to notice the cancel", d)
	}
}

func TestPromptRefuses(t *testing.T) {
	t.Parallel()
	bad := fixture(t)
	bad.Recommended = 0
	if _, err := Prompt(t.Context(), strings.NewReader("\n"), io.Discard, bad); err == nil {
		t.Error("Prompt on an invalid checkpoint = nil error")
	}
	if _, err := Prompt(t.Context(), strings.NewReader("\n"), failingWriter{}, fixture(t)); err == nil || !strings.Contains(err.Error(), "terminal gone") {
		t.Errorf("Prompt with a failing output = %v", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("terminal gone") }
