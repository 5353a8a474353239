package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/optr-dev/optr/internal/ledger"
)

const ledgerUsage = `optr ledger verify|show [--ledger FILE]

verify checks every line of the ledger: canonical JSON, seq, prev and hash.
It exits 0 when the chain is valid and 1 naming the first bad line and why.
show prints the entries, one per line (--json for the raw lines).`

func (c *CLI) cmdLedger(ctx context.Context, args []string) error {
	fs := c.flags("ledger")
	path := fs.String("ledger", ".optr/ledger.jsonl", "ledger file")
	asJSON := fs.Bool("json", false, "show: print the raw JSON lines")
	if err := c.parse(fs, ledgerUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		c.printUsage(c.Stderr, fs, ledgerUsage)
		return usageErr(errors.New("ledger needs a subcommand: verify or show"))
	}
	switch fs.Arg(0) {
	case "verify":
		return c.ledgerVerify(*path)
	case "show":
		return c.ledgerShow(*path, *asJSON)
	}
	return usageErr(fmt.Errorf("unknown ledger subcommand %q (want verify or show)", fs.Arg(0)))
}

func (c *CLI) ledgerVerify(path string) error {
	sum, err := ledger.VerifyFile(path)
	if err != nil {
		var ve *ledger.VerifyError
		if errors.As(err, &ve) {
			return &ExitError{Code: ExitFailed, Err: fmt.Errorf("%s: line %d: %s", path, ve.Line, ve.Reason)}
		}
		if errors.Is(err, os.ErrNotExist) {
			return usageErr(fmt.Errorf("ledger %s does not exist", path))
		}
		return err
	}
	fmt.Fprintf(c.Stdout, "%s: valid, %d entries, head %s\n", path, sum.Entries, headHash(sum.Head.Hash))
	return nil
}

func headHash(h string) string {
	if h == "" {
		return "(empty)"
	}
	return h
}

func (c *CLI) ledgerShow(path string, asJSON bool) error {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return usageErr(fmt.Errorf("ledger %s does not exist", path))
		}
		return err
	}
	defer f.Close()
	return ledger.Scan(f, func(e ledger.Entry) error {
		if asJSON {
			line, err := e.Line()
			if err != nil {
				return err
			}
			_, err = c.Stdout.Write(line)
			return err
		}
		extra := ""
		if s, ok := e.Fields["selected"].(string); ok {
			extra = " selected=" + orDash(s)
		}
		if s, ok := e.Fields["status"].(string); ok {
			extra += " status=" + s
		}
		if s, ok := e.Fields["decision"].(string); ok {
			extra += " decision=" + s
		}
		if s, ok := e.Fields["checkpoint"].(string); ok {
			extra += " checkpoint=" + s
		}
		fmt.Fprintf(c.Stdout, "%6d  %s  %-10s %-24s %-20s %.12s…%s\n", e.Seq, e.Time, e.Kind, e.Run, e.Workflow, e.Hash, extra)
		return nil
	})
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
