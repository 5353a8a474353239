package actiontest

import (
	"fmt"
	"strings"
)

// Output is one step output as the runner reads it.
type Output struct {
	Name, Value string
}

// ParseOutputs reads a GITHUB_OUTPUT file the way the Actions runner does
// (FileCommandManager): NAME=VALUE lines, or NAME<<DELIMITER, value lines
// and a line that is exactly DELIMITER. Only "\n" ends a line, as for the
// runner on Linux: a "\r" before it is part of the value. The outputs come
// in file order, a name set twice twice. A heredoc
// without its delimiter, or a line that is neither form, is an error, as
// it is for the runner.
func ParseOutputs(text string) ([]Output, error) {
	var out []Output
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		eq, hd := strings.Index(line, "="), strings.Index(line, "<<")
		switch {
		case eq >= 0 && (hd < 0 || eq < hd):
			out = append(out, Output{Name: line[:eq], Value: line[eq+1:]})
		case hd >= 0:
			name, delim := line[:hd], line[hd+2:]
			if name == "" || delim == "" {
				return nil, fmt.Errorf("line %d: empty name or delimiter", i+1)
			}
			var value []string
			for i++; ; i++ {
				if i >= len(lines) {
					return nil, fmt.Errorf("matching delimiter %q not found", delim)
				}
				if lines[i] == delim {
					break
				}
				value = append(value, lines[i])
			}
			out = append(out, Output{Name: name, Value: strings.Join(value, "\n")})
		default:
			return nil, fmt.Errorf("line %d: invalid format %q", i+1, line)
		}
	}
	return out, nil
}
