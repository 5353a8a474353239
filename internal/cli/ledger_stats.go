package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/standings"
)

// ledgerStats prints the standings of the runs recorded since --since:
// a table, or JSON, and with --html the page into a file.
func (c *CLI) ledgerStats(ctx context.Context, f ledgerFlags) error {
	now := c.Now().UTC()
	since, err := parseSince(f.since, now)
	if err != nil {
		return usageErr(fmt.Errorf("--since %s: %w", f.since, err))
	}
	if !slices.Contains(standings.Bys, f.by) {
		return usageErr(fmt.Errorf("--by %s: want one of %s", f.by, strings.Join(standings.Bys, ", ")))
	}
	if files, _ := ledger.Files(f.path); len(files) == 0 {
		return usageErr(fmt.Errorf("ledger %s does not exist", f.path))
	}
	read := standings.Read
	if f.noVerify {
		read = standings.ReadUnverified
		fmt.Fprintf(c.Stderr, "optr: %s is not verified (--no-verify): the figures are what its lines say\n", f.path)
	}
	s, err := read(ctx, ledger.Local(f.path), since, now)
	if err != nil {
		var verr *ledger.VerifyError
		if errors.As(err, &verr) {
			err = fmt.Errorf("%w; no figures are shown of a ledger that does not verify: `optr ledger verify --ledger %s` checks all of it, and --no-verify shows them all the same", err, f.path)
		}
		return &ExitError{Code: ExitFailed, Err: err}
	}
	if f.html != "" {
		page, err := standings.HTML(s)
		if err != nil {
			return err
		}
		if err := datalake.Replace(f.html, page); err != nil {
			return fmt.Errorf("write the standings page: %w", err)
		}
		fmt.Fprintf(c.Stderr, "optr: wrote the standings page %s\n", f.html)
	}
	if f.asJSON {
		return c.writeJSON(standings.View(s, f.by))
	}
	return standings.Text(c.Stdout, s, f.by)
}

// parseSince reads --since: a span back from now (30d, 2w, 12h, 90m) or
// a UTC date (2026-11-01).
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.Atoi(n)
			if err != nil || v < 0 {
				return time.Time{}, fmt.Errorf("want a span such as 30d, 2w or 12h, or a date such as 2026-11-01")
			}
			return now.Add(-time.Duration(v) * unit), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, fmt.Errorf("want a span such as 30d, 2w or 12h, or a date such as 2026-11-01")
	}
	return now.Add(-d), nil
}
