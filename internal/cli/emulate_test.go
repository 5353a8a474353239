package cli

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// emulate plays what a program wrote to a terminal cols wide and returns
// the lines left on it, trailing blanks removed. It knows what the live
// view may send: printable text, "\r", "\n", and the CSI sequences
// cursor up (A), erase below (J), erase line (2K) and colour (m); anything
// else fails the test. The screen scrolls without bound, so the result is
// everything that was ever shown and not erased. A line longer than the
// terminal wraps onto the next rows and comes back as one line.
func emulate(t *testing.T, out string, cols int) []string {
	t.Helper()
	var (
		screen   = [][]rune{{}}
		wrapped  = map[int]bool{} // rows that continue the row above
		row, col int
	)
	grow := func() {
		for len(screen) <= row {
			screen = append(screen, []rune{})
		}
	}
	put := func(r rune) {
		if col >= cols { // the cursor wraps before the next character
			row, col = row+1, 0
			grow()
			wrapped[row] = true
		}
		grow()
		line := screen[row]
		for len(line) <= col {
			line = append(line, ' ')
		}
		line[col] = r
		screen[row] = line
		col++
	}
	for i := 0; i < len(out); {
		switch c := out[i]; {
		case c == '\r':
			col = 0
			i++
		case c == '\n':
			row++
			grow()
			i++
		case c == 0x1b:
			if i+1 >= len(out) || out[i+1] != '[' {
				t.Fatalf("an escape that is no CSI sequence at byte %d: %q", i, out[i:min(i+10, len(out))])
			}
			j := i + 2
			for j < len(out) && (out[j] >= '0' && out[j] <= '9' || out[j] == ';') {
				j++
			}
			if j >= len(out) {
				t.Fatalf("a CSI sequence cut off at byte %d", i)
			}
			param, final := out[i+2:j], out[j]
			n, _ := strconv.Atoi(param)
			switch {
			case final == 'A':
				row = max(row-max(n, 1), 0)
			case final == 'J' && (param == "" || param == "0"):
				if row < len(screen) && col < len(screen[row]) {
					screen[row] = screen[row][:col]
				}
				screen = screen[:min(row+1, len(screen))]
				for r := range wrapped {
					if r > row {
						delete(wrapped, r)
					}
				}
			case final == 'K' && param == "2":
				if row < len(screen) {
					screen[row] = []rune{}
				}
				delete(wrapped, row+1)
			case final == 'm':
			default:
				t.Fatalf("a CSI sequence the live view should not send: %q", out[i:j+1])
			}
			i = j + 1
		case c < 0x20:
			t.Fatalf("a control character %q at byte %d", c, i)
		default:
			r, size := utf8.DecodeRuneInString(out[i:])
			put(r)
			i += size
		}
	}
	var lines []string
	for i, l := range screen {
		if wrapped[i] && len(lines) > 0 {
			lines[len(lines)-1] += string(l)
			continue
		}
		lines = append(lines, string(l))
	}
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func TestEmulate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, out string
		want      []string
	}{
		{"lines", "a\r\nb\r\n", []string{"a", "b"}},
		{"line feed only", "ab\ncd\r\n", []string{"ab", "  cd"}},
		{"redraw", "row 1\r\nrow 2\r\n\r\x1b[2A\x1b[Jlog\r\nrow 1\r\nrow 2\r\n", []string{"log", "row 1", "row 2"}},
		{"wrap", "abcdef\r\nxy\r\n", []string{"abcdef", "xy"}},
		{"colour", "\x1b[31m✘\x1b[0m x\r\n", []string{"✘ x"}},
		{"erase line", "stale\r\x1b[2Knew\r\n", []string{"new"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cols := 100
			if tt.name == "wrap" {
				cols = 4
			}
			got := emulate(t, tt.out, cols)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("emulate(%q) = %q, want %q", tt.out, got, tt.want)
			}
		})
	}
}
