package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/optr-dev/optr/internal/inputfile"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/tlogwitness"
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
		if errors.Is(err, ledger.ErrBadKey) || errors.Is(err, ledger.ErrKeyName) {
			return usageErr(err)
		}
		return c.verifyFailure(f.path, err)
	}
	_, err = c.Stdout.Write(out)
	return err
}

func (c *CLI) ledgerProve(f ledgerFlags) error {
	switch {
	case f.fromSet && f.seq != 0:
		return usageErr(errors.New("prove takes --seq N (an inclusion proof) or --from N (a consistency proof), not both"))
	case f.fromSet:
		return c.proveConsistency(f)
	case f.seq < 1:
		return usageErr(errors.New("prove needs --seq N, the entry to prove (1 or more), or --from N, the size to prove consistency from"))
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

// proveConsistency prints the consistency proof from size --from to the
// ledger's head, one base64 hash per line; the head's checkpoint goes to
// stderr (`optr ledger checkpoint` prints it signed).
func (c *CLI) proveConsistency(f ledgerFlags) error {
	if f.from < 0 {
		return usageErr(fmt.Errorf("--from %d: a size is 0 or more", f.from))
	}
	if f.key != "" {
		return usageErr(errors.New("prove --from prints only the proof's hashes; sign the head with `optr ledger checkpoint --key FILE`"))
	}
	p, head, err := ledger.ProveConsistency(f.path, c.origin(f.origin), f.from)
	if err != nil {
		var ve *ledger.VerifyError
		if errors.Is(err, os.ErrNotExist) || errors.As(err, &ve) {
			return c.verifyFailure(f.path, err)
		}
		return usageErr(err)
	}
	if _, err := c.Stdout.Write(ledger.FormatConsistency(p)); err != nil {
		return err
	}
	fmt.Fprintf(c.Stderr, "optr: consistency proof from size %d to %d, the head:\n%s", f.from, head.Size, head.Text())
	return nil
}

// verifyConsistency checks a consistency proof from checkpoint OLD to
// NEW (both already read and checked as --checkpoint files).
func (c *CLI) verifyConsistency(file string, names []string, cps []ledger.TreeHead) error {
	data, err := inputfile.ReadFile(file, maxSmallFile)
	if err != nil {
		return usageErr(fmt.Errorf("read the consistency proof: %w", err))
	}
	p, err := ledger.ParseConsistency(data)
	if err != nil {
		return failed("%s: %w", file, err)
	}
	if err := ledger.CheckConsistency(p, cps[0], cps[1]); err != nil {
		return failed("%s: %w", file, err)
	}
	fmt.Fprintf(c.Stdout, "consistency %s: checkpoint %s (%s, %d entries) extends %s (%d entries)\n", file, names[1], cps[1].Origin, cps[1].Size, names[0], cps[0].Size)
	return nil
}

// checkCosigners checks that a checkpoint is cosigned by quorum of the
// witnesses keys name (0: all of them).
func (c *CLI) checkCosigners(file string, data []byte, keys []string, quorum int) error {
	if quorum == 0 {
		quorum = len(keys)
	}
	names, err := tlogwitness.Cosigners(data, keys, quorum)
	var qe *tlogwitness.QuorumError
	switch {
	case errors.As(err, &qe):
		return failed("checkpoint %s: %w", file, err)
	case err != nil:
		return usageErr(fmt.Errorf("--witness-key: %w", err))
	}
	fmt.Fprintf(c.Stdout, "checkpoint %s: cosigned by %s (%d of %d witnesses, %d needed)\n", file, strings.Join(names, ", "), len(names), len(keys), quorum)
	return nil
}

// keyOrigin is the origin keygen names a key after: --origin, else
// optr/<owner>/<repo> when GITHUB_REPOSITORY says which repository, else
// optr/local.
func (c *CLI) keyOrigin(flag string) string {
	if flag != "" {
		return flag
	}
	return ledger.Origin(c.Getenv("GITHUB_REPOSITORY"))
}

func (c *CLI) ledgerKeygen(f ledgerFlags) error {
	if f.key == "" {
		return usageErr(errors.New("keygen needs --key FILE, where to write the private key"))
	}
	name := c.keyOrigin(f.origin)
	skey, vkey, err := ledger.GenerateKey(name)
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
	fmt.Fprintf(c.Stderr, "optr: private key in %s (keep it secret: store it as the OPTR_LEDGER_KEY secret), public key in %s.pub; it signs checkpoints of origin %s only\n", f.key, f.key, name)
	if name == ledger.LocalOrigin {
		fmt.Fprintf(c.Stderr, "optr: for the Action, name the key after the repository: optr ledger keygen --origin optr/<owner>/<repo>\n")
	}
	return nil
}
