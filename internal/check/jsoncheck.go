package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/markdown"
)

func init() {
	register(config.CheckJSON, kind{
		build: func(string, config.Constraint, Options) (Checker, error) { return jsonCheck{}, nil },
		describe: func(config.Constraint) string {
			return "the output is one valid JSON value and nothing else"
		},
	})
}

// jsonCheck passes when the output is exactly one JSON value, with nothing
// but JSON whitespace around it.
type jsonCheck struct{}

func (jsonCheck) Check(_ context.Context, output string) (Outcome, error) {
	if err := validJSON(output); err != nil {
		return Outcome{Reason: err.Error()}, nil
	}
	return Outcome{Pass: true}, nil
}

// validJSON reports why output is not a single JSON value, with the position
// of the fault. encoding/json finds the fault; this only adds where it is,
// since a byte offset alone is hard to find in an agent's answer.
func validJSON(output string) error {
	if strings.Trim(output, " \t\r\n") == "" {
		return errors.New("output is empty; expected one JSON value")
	}
	dec := json.NewDecoder(strings.NewReader(output))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			// Offset counts the bytes read, the offending one included.
			return fmt.Errorf("output is not valid JSON: %v %s", se, at(output, max(int(se.Offset)-1, 0)))
		case errors.Is(err, io.ErrUnexpectedEOF):
			return fmt.Errorf("output is not valid JSON: it ends before the value is complete %s", at(output, len(output)))
		default:
			return fmt.Errorf("output is not valid JSON: %w", err)
		}
	}
	end := int(dec.InputOffset())
	if rest := strings.TrimLeft(output[end:], " \t\r\n"); rest != "" {
		off := len(output) - len(rest)
		return fmt.Errorf("output holds more than one JSON value: unexpected %s after the value %s", quote(markdown.Truncate(rest, 1), 1), at(output, off))
	}
	return nil
}

// at describes byte offset off of s for a Reason.
func at(s string, off int) string {
	line, col := position(s, off)
	return fmt.Sprintf("(line %d, column %d, byte offset %d)", line, col, off)
}
