package cli

import (
	"context"
	"fmt"

	"github.com/optr-dev/optr/internal/version"
)

func (c *CLI) cmdVersion(ctx context.Context, args []string) error {
	fs := c.flags("version")
	if err := c.parse(fs, "optr version", args); err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "optr %s\n", version.String())
	return nil
}
