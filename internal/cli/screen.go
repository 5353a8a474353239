package cli

import (
	"io"
	"os"

	"golang.org/x/term"
)

// screen is what the CLI's stderr can show.
type screen struct {
	// tty is true on a terminal that can move the cursor: stderr is a
	// terminal and TERM is not "dumb".
	tty bool
	// color is true when the terminal also wants colour: NO_COLOR is unset
	// or empty (https://no-color.org).
	color bool
	// width is the terminal's width in columns, asked anew each time
	// (the window may be resized); 80 when it cannot be asked.
	width func() int
}

// SGR colours.
const (
	red    = "31"
	green  = "32"
	yellow = "33"
)

// screenOf says what w can show, from c.IsTerminal and the environment.
func (c *CLI) screenOf(w io.Writer) screen {
	getenv := c.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	s := screen{width: func() int { return 80 }}
	s.tty = c.IsTerminal != nil && c.IsTerminal(w) && getenv("TERM") != "dumb"
	s.color = s.tty && getenv("NO_COLOR") == ""
	if f, ok := w.(*os.File); ok && s.tty {
		s.width = func() int {
			if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
				return cols
			}
			return 80
		}
	}
	return s
}

// paint colours text with the SGR colour when the screen wants colour;
// "" leaves it as it is.
func (s screen) paint(colour, text string) string {
	if !s.color || colour == "" {
		return text
	}
	return "\x1b[" + colour + "m" + text + "\x1b[0m"
}
