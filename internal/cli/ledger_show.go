package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
)

// showTime is the time column of `ledger show`: whole seconds in UTC, so
// the column keeps its width whatever fraction an entry's time has.
const showTime = "2006-01-02 15:04:05Z"

func (c *CLI) ledgerShow(f ledgerFlags) error {
	if f.last < 0 {
		return usageErr(fmt.Errorf("--last %d: want a positive count", f.last))
	}
	if _, err := os.Stat(f.path); errors.Is(err, os.ErrNotExist) {
		if files, _ := ledger.Files(f.path); len(files) == 0 {
			return usageErr(fmt.Errorf("ledger %s does not exist", f.path))
		}
	}
	var (
		ring []ledger.Entry // the last f.last matches when --last is set
		at   int
	)
	// Fixed widths rather than a tabwriter: show streams, whatever the
	// ledger's length.
	if !f.asJSON {
		fmt.Fprintf(c.Stdout, showRow, "SEQ", "TIME (UTC)", "KIND", "RUN", "WORKFLOW", "HASH", "DETAILS")
	}
	emit := func(e ledger.Entry) error {
		if f.asJSON {
			line, err := e.Line()
			if err != nil {
				return err
			}
			_, err = c.Stdout.Write(line)
			return err
		}
		showEntry(c.Stdout, e)
		return nil
	}
	err := ledger.ScanFile(f.path, func(e ledger.Entry) error {
		if (f.kind != "" && e.Kind != f.kind) || (f.workflow != "" && e.Workflow != f.workflow) {
			return nil
		}
		if f.last == 0 {
			return emit(e)
		}
		if len(ring) < f.last {
			ring = append(ring, e)
		} else {
			ring[at] = e
			at = (at + 1) % f.last
		}
		return nil
	})
	if err != nil {
		return c.verifyFailure(f.path, err)
	}
	for i := range ring {
		if err := emit(ring[(at+i)%len(ring)]); err != nil {
			return err
		}
	}
	return nil
}

// showRow lays out one row of `ledger show`.
const showRow = "%8s  %-20s  %-10s  %-24s  %-20s  %-13s  %s\n"

func showEntry(w io.Writer, e ledger.Entry) {
	when := e.Time
	if t, err := time.Parse(time.RFC3339Nano, e.Time); err == nil {
		when = t.UTC().Format(showTime)
	}
	extra := ""
	for _, k := range []string{"selected", "status", "decision", "checkpoint"} {
		if s, ok := e.Fields[k].(string); ok {
			if k == "selected" {
				s = orDash(s)
			}
			extra += " " + k + "=" + s
		}
	}
	fmt.Fprintf(w, showRow, strconv.FormatInt(e.Seq, 10), when, e.Kind, e.Run, orDash(e.Workflow), e.Hash[:min(12, len(e.Hash))]+"…", trimSpace(extra))
}

func trimSpace(s string) string {
	if len(s) > 0 && s[0] == ' ' {
		return s[1:]
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
