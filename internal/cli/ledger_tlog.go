package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/optr-dev/optr/internal/inputfile"
	"github.com/optr-dev/optr/internal/ledger"
)

// signingKey is the private key to sign checkpoints with: the --key file,
// else $OPTR_LEDGER_KEY, else none.
func (c *CLI) signingKey(file string) (string, error) {
	if file != "" {
		return readKeyFile(file, "private key")
	}
	return strings.TrimSpace(c.Getenv("OPTR_LEDGER_KEY")), nil
}

func (c *CLI) ledgerCheckpoint(f ledgerFlags) error {
	skey, err := c.signingKey(f.key)
	if err != nil {
		return err
	}
	out, err := ledger.HeadCheckpoint(f.path, c.origin(f.origin), skey)
	if err != nil {
		if errors.Is(err, ledger.ErrBadKey) {
			return usageErr(err)
		}
		return c.verifyFailure(f.path, err)
	}
	_, err = c.Stdout.Write(out)
	return err
}

func (c *CLI) ledgerProve(f ledgerFlags) error {
	if f.seq < 1 {
		return usageErr(errors.New("prove needs --seq N, the entry to prove (1 or more)"))
	}
	skey, err := c.signingKey(f.key)
	if err != nil {
		return err
	}
	p, cp, err := ledger.Prove(f.path, c.origin(f.origin), f.seq)
	if err != nil {
		return c.verifyFailure(f.path, err)
	}
	if skey != "" {
		signed, err := cp.Sign(skey)
		if err != nil {
			return usageErr(err)
		}
		p.Checkpoint = string(signed)
	}
	enc := json.NewEncoder(c.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(p)
}

// verifyProof checks an inclusion proof, and that the verified ledger
// (ts) holds the checkpoint it leads to.
func (c *CLI) verifyProof(file, vkey string, ts ledger.TreeSummary) error {
	data, err := inputfile.ReadFile(file, maxSmallFile)
	if err != nil {
		return usageErr(fmt.Errorf("read the proof: %w", err))
	}
	var p ledger.Proof
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return failed("proof %s is not a proof from `optr ledger prove`: %w", file, err)
	}
	cp, err := p.Check(vkey)
	if err != nil {
		return failed("%s: %w", file, err)
	}
	if cp.Size <= ts.Entries && cp.Size != ts.Entries {
		// Only the head's root is known without another pass; an older
		// checkpoint is checked with --checkpoint.
		fmt.Fprintf(c.Stdout, "proof %s: entry %d is in checkpoint %s at size %d (an older head; check it with --checkpoint)\n", file, p.Seq, cp.Origin, cp.Size)
		return nil
	}
	if err := ts.Holds(cp); err != nil {
		return failed("proof %s: %w", file, err)
	}
	fmt.Fprintf(c.Stdout, "proof %s: entry %d is in the ledger's head (%s, %d entries)\n", file, p.Seq, cp.Origin, cp.Size)
	return nil
}

func (c *CLI) ledgerKeygen(f ledgerFlags) error {
	if f.key == "" {
		return usageErr(errors.New("keygen needs --key FILE, where to write the private key"))
	}
	skey, vkey, err := ledger.GenerateKey(c.origin(f.origin))
	if err != nil {
		return err
	}
	// O_EXCL: never overwrite a key someone may already rely on.
	kf, err := os.OpenFile(f.key, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return usageErr(fmt.Errorf("write the private key: %w", err))
	}
	if _, err := kf.WriteString(skey + "\n"); err != nil {
		kf.Close()
		return fmt.Errorf("write the private key: %w", err)
	}
	if err := kf.Close(); err != nil {
		return fmt.Errorf("write the private key: %w", err)
	}
	if err := os.WriteFile(f.key+".pub", []byte(vkey+"\n"), 0o644); err != nil {
		return fmt.Errorf("write the public key: %w", err)
	}
	fmt.Fprintln(c.Stdout, vkey)
	fmt.Fprintf(c.Stderr, "optr: private key in %s (keep it secret: store it as the OPTR_LEDGER_KEY secret), public key in %s.pub\n", f.key, f.key)
	return nil
}
