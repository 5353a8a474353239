package actionrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/tlogwitness"
)

// checkLedgerKey checks OPTR_LEDGER_KEY against the ledger's origin and the
// config's witnesses before any agent runs (architecture §4.13): witnesses
// without a key, or with a key of another name, are a configuration error
// (they cosign only a checkpoint signed by the key named after the
// origin); a key of another name without witnesses only loses the
// checkpoint's signature, which a warning says.
func (j *Job) checkLedgerKey(cfg *config.Config) error {
	key, origin := j.ledgerKey(), ledger.Origin(j.env.Repository)
	var keyErr error
	if key != "" {
		keyErr = ledger.CheckKeyName(key, origin)
	}
	switch {
	case len(cfg.Ledger.Witnesses) > 0 && key == "":
		return cfg.ErrorAt("ledger.witnesses", "witnesses cosign only a signed checkpoint: store a key named %s as the OPTR_LEDGER_KEY secret (`optr ledger keygen --origin %s`) and pass it to the step, or remove ledger.witnesses", origin, origin)
	case len(cfg.Ledger.Witnesses) > 0 && keyErr != nil:
		return cfg.ErrorAt("ledger.witnesses", "OPTR_LEDGER_KEY: %v", keyErr)
	case keyErr != nil:
		j.log.Warning("OPTR_LEDGER_KEY: " + keyErr.Error() + "; the ledger checkpoint is published unsigned until then")
	}
	return nil
}

// signingKey is OPTR_LEDGER_KEY when it can sign the ledger's checkpoints,
// "" otherwise (checkLedgerKey said why).
func (j *Job) signingKey() string {
	key := j.ledgerKey()
	if key == "" || ledger.CheckKeyName(key, ledger.Origin(j.env.Repository)) != nil {
		return ""
	}
	return key
}

// cosign hands the signed checkpoint of the ledger a commit-back just
// moved to the config's witnesses (C2SP tlog-witness), from previous, the
// ledger's size before the run, the size they most likely cosigned last.
// The consistency proofs come from what the commit-back holds (the newest
// sealed segment's tree file and the active segment), else from the
// workspace's ledger. It returns the checkpoint with every cosignature
// added (signed unchanged when none), and writes it to
// <datalake>/checkpoints/ledger-<size>.cosigned when any witness cosigned;
// path is that file ("" when none). A witness that is down or refuses is a
// warning naming it, never an error.
func (j *Job) cosign(ctx context.Context, ws []config.Witness, lake string, signed []byte, head ledger.TreeHead, previous int64, lastTree, active []byte) (cosigned []byte, path string) {
	var witnesses []tlogwitness.Witness
	for _, w := range ws {
		tw, err := tlogwitness.New(w.URL, w.Key)
		if err != nil { // checked when the config was loaded
			j.log.Warning(fmt.Sprintf("witness %s: %v", w.URL, err))
			continue
		}
		witnesses = append(witnesses, tw)
	}
	prove := func(from int64) (tlog.TreeProof, error) {
		p, err := ledger.ConsistencyOf(lastTree, active, from)
		if err == nil {
			return p, nil
		}
		// An older size needs the sealed segments: the workspace has them
		// when the ledger lives beside the code.
		p, at, werr := ledger.ProveConsistency(datalake.Open(lake).LedgerPath(), head.Origin, from)
		if werr != nil || at != head {
			return nil, err
		}
		return p, nil
	}
	client := &tlogwitness.Client{HTTP: j.HTTPClient, Sleep: j.Sleep}
	results := client.SubmitAll(ctx, witnesses, tlogwitness.Checkpoint{Signed: signed, Size: head.Size, Origin: head.Origin}, previous, prove)
	var names []string
	for _, r := range results {
		if r.Err != nil {
			j.log.Warning("the ledger checkpoint is not cosigned by " + r.Err.Error())
			continue
		}
		names = append(names, r.Witness.Name())
		j.log.Infof("witness %s cosigned the ledger checkpoint at size %d (%d request(s))", r.Witness.Name(), head.Size, r.Requests)
	}
	if len(names) == 0 {
		return signed, ""
	}
	cosigned = tlogwitness.Cosigned(signed, results)
	path = datalake.Open(lake).CosignedPath(head.Size)
	if err := datalake.WriteOnce(path, cosigned); err != nil && !errors.Is(err, fs.ErrExist) {
		j.log.Warning(fmt.Sprintf("could not keep the cosigned checkpoint (%s): %v", strings.Join(names, ", "), err))
		return cosigned, ""
	}
	return cosigned, path
}
