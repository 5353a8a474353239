package checkpoint

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/optr-dev/optr/internal/markdown"
)

// ErrNoAnswer is returned by Prompt when the input ends before an option
// is chosen. The caller pauses the run instead, as without a terminal.
var ErrNoAnswer = errors.New("no answer: the input ended before an option was chosen")

// Limits of what Prompt shows and reads.
const (
	promptContextLines = 60
	maxAnswerLen       = 64 << 10
)

// Prompt asks at a terminal. It prints the trigger, the context (made
// safe for a terminal, long contexts cut), and the numbered options with
// the recommended one marked, then reads a line: an empty line chooses
// the recommended option, a number chooses that option, anything else is
// explained and asked again. Then it asks for an optional note (an empty
// line is none). The Decision it returns has Source SourceTerminal and no
// By: the caller knows who is at the terminal.
//
// The input ending before an option is chosen is ErrNoAnswer; ending
// while the note is read is no note. If ctx ends first Prompt returns its
// error at once, leaving one read of in pending (a blocked terminal read
// cannot be interrupted); the caller must not read in afterwards.
func Prompt(ctx context.Context, in io.Reader, out io.Writer, cp Checkpoint) (Decision, error) {
	if err := cp.Validate(); err != nil {
		return Decision{}, fmt.Errorf("prompt: %w", err)
	}
	w := &errWriter{w: out}
	showCheckpoint(w, cp)
	lines := &lineReader{br: bufio.NewReader(in)}
	chosen, err := askOption(ctx, w, lines, cp)
	if err != nil {
		return Decision{}, fmt.Errorf("prompt at checkpoint %s: %w", cp.ID, err)
	}
	fmt.Fprintf(w, "Chose %d) %s.\n", chosen.N, terminalSafe(chosen.Label))
	fmt.Fprint(w, "Note (optional, Enter for none): ")
	if w.err != nil {
		return Decision{}, fmt.Errorf("prompt at checkpoint %s: %w", cp.ID, w.err)
	}
	note, err := lines.read(ctx)
	if errors.Is(err, io.EOF) {
		fmt.Fprintln(w)
	} else if err != nil {
		return Decision{}, fmt.Errorf("prompt at checkpoint %s: %w", cp.ID, err)
	}
	return Decision{
		Option: chosen.N, Action: chosen.Action,
		Note: strings.TrimSpace(note), Source: SourceTerminal,
	}, nil
}

// askOption asks which option until it gets one, the input ends
// (ErrNoAnswer) or reading fails.
func askOption(ctx context.Context, w *errWriter, lines *lineReader, cp Checkpoint) (Option, error) {
	for {
		fmt.Fprintf(w, "Choose %s [Enter = %d]: ", numbers(cp.Options), cp.Recommended)
		if w.err != nil {
			return Option{}, w.err
		}
		line, err := lines.read(ctx)
		ended := errors.Is(err, io.EOF)
		switch {
		case err != nil && !ended:
			return Option{}, err
		case ended && line == "":
			fmt.Fprintln(w)
			return Option{}, ErrNoAnswer
		}
		o, problem := parseAnswer(line, cp)
		if problem == "" {
			return o, nil
		}
		if ended {
			fmt.Fprintln(w) // the input ended without the newline that ends the prompt's line
		}
		fmt.Fprintln(w, problem)
		if ended {
			return Option{}, ErrNoAnswer
		}
	}
}

// parseAnswer reads one answer to the option question: the option it
// chooses, or a one-line problem to show before asking again.
func parseAnswer(line string, cp Checkpoint) (Option, string) {
	s := strings.TrimSpace(line)
	if s == "" {
		o, ok := cp.Option(cp.Recommended)
		if !ok {
			return Option{}, "There is no recommended option: enter a number."
		}
		return o, ""
	}
	rec, _ := cp.Option(cp.Recommended)
	again := fmt.Sprintf("enter a number from 1 to %d, or press Enter for %d (%s).", len(cp.Options), rec.N, terminalSafe(rec.Label))
	n, err := strconv.Atoi(s)
	if err != nil || strings.HasPrefix(s, "+") {
		return Option{}, fmt.Sprintf("%q is not an option number: %s", markdown.Shorten(s, 20), again)
	}
	o, ok := cp.Option(n)
	if !ok {
		return Option{}, fmt.Sprintf("There is no option %d: %s", n, again)
	}
	return o, ""
}

// showCheckpoint prints what the human needs to decide.
func showCheckpoint(w io.Writer, cp Checkpoint) {
	fmt.Fprintf(w, "\noptr paused at checkpoint %s: %s\n", cp.ID, terminalSafe(string(cp.Trigger)))
	fmt.Fprintf(w, "Run %s of workflow %s.", cp.Run, cp.Workflow)
	if s := situation(cp.Trigger); s != "" {
		fmt.Fprint(w, " "+s)
	}
	fmt.Fprintln(w)
	if ctx := strings.TrimRight(terminalSafe(cp.Context), "\n "); strings.TrimSpace(ctx) != "" {
		fmt.Fprintln(w, "\nContext:")
		lines := strings.Split(ctx, "\n")
		for i, l := range lines {
			if i == promptContextLines {
				fmt.Fprintf(w, "  │ … %d more lines in %s\n", len(lines)-i, checkpointDir+cp.ID+fileExt)
				break
			}
			fmt.Fprintln(w, "  │ "+markdown.Shorten(l, 200))
		}
	}
	fmt.Fprintln(w, "\nOptions:")
	for _, o := range cp.Options {
		fmt.Fprintf(w, "  %d) %s", o.N, terminalSafe(o.Label))
		if o.Description != "" {
			fmt.Fprint(w, " — "+terminalSafe(o.Description))
		}
		if o.N == cp.Recommended {
			fmt.Fprint(w, " (recommended)")
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nRecommended: %d (%s)\n", cp.Recommended, terminalSafe(cp.Recommendation))
}

// lineReader reads lines without outliving ctx.
type lineReader struct{ br *bufio.Reader }

type lineResult struct {
	line string
	err  error
}

// read returns the next line without its line ending. At the end of the
// input it returns what is left with io.EOF. A line longer than
// maxAnswerLen is cut there; the rest of it is skipped.
func (lr *lineReader) read(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	ch := make(chan lineResult, 1) // buffered: a read that outlives ctx does not block forever
	go func() {
		line, err := lr.readLine()
		ch <- lineResult{line, err}
	}()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case r := <-ch:
		return r.line, r.err
	}
}

func (lr *lineReader) readLine() (string, error) {
	var b []byte
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if len(b) < maxAnswerLen {
			b = append(b, chunk[:min(len(chunk), maxAnswerLen-len(b))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return strings.TrimRight(string(b), "\r\n"), err
	}
}

// errWriter keeps the first write error, so that printing can go on
// unchecked and the error is looked at once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
