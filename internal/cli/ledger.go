package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/inputfile"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/ledger/witness"
	"github.com/optr-dev/optr/internal/standings"
)

// ledgerSubcommands are the ledger's subcommands, each with what it does
// and the flags it reads besides --ledger: `optr ledger --help` prints them
// all, `optr ledger SUB --help` its own with only its flags, and a flag
// given to a subcommand that does not read it is refused.
var ledgerSubcommands = []struct {
	name, help string
	flags      []string
}{
	{"verify", `checks every line of the ledger (its sealed segments in ledger.d/
and ledger.jsonl, as one chain): canonical JSON, seq, prev, hash.
--checkpoint FILE (repeatable) also checks that the ledger holds
each checkpoint (a signed one against --key-public FILE);
--witness-key VKEY (repeatable) also checks that each checkpoint
is cosigned by --witness-quorum K of those witnesses (default
all of them);
--witness walks the git history of the ledger: each commit's
ledger a prefix of the next, its Optr-Ledger-* trailers matching,
and every head this clone verified before still in it
(.git/optr-witness); with --repo owner/repo (and a token in
GITHUB_TOKEN) it also checks the heads optr published in its
progress comments there;
--proof FILE checks an inclusion proof from 'optr ledger prove';
--consistency FILE --checkpoint OLD --checkpoint NEW checks a
consistency proof from 'optr ledger prove --from' (the ledger
file is not read).
Exits 0 when all holds, 1 naming the first line, segment, commit,
comment or checkpoint that does not.`, []string{"checkpoint", "key-public", "witness", "proof", "origin", "consistency", "witness-key", "witness-quorum", "repo"}},
	{"show", `prints the entries with a header; --kind, --workflow and --last N
filter them, --json prints the raw lines.`, []string{"json", "kind", "workflow", "last"}},
	{"stats", `prints the standings of the runs recorded since --since (default
30d; a span such as 2w or 12h, or a date such as 2026-11-01),
--by agent (runs, win rate, admissible rate, median and p90 exec
time, tokens, cost, cost per win; and of the pull requests its
changes opened: merged, merge rate, median time to merge,
reverted, cost per merged change), model (the same per model),
constraint (pass rate) or workflow (runs, outcomes); agents
rank by merge rate once people merged or closed their changes,
by win rate before. --json prints them as JSON, --html FILE
writes one self-contained page with charts, over time too. It
verifies what it reads (exits 1 naming the line that does not
verify); --no-verify reads a broken ledger all the same, and
says so.`, []string{"json", "since", "by", "html", "no-verify"}},
	{"checkpoint", `prints the ledger head as a C2SP tlog checkpoint (origin, entry
count, RFC 6962 Merkle root), signed as a note with --key FILE or
$OPTR_LEDGER_KEY.`, []string{"origin", "key"}},
	{"prove", `prints an inclusion proof of entry --seq N in the current head,
or with --from N the consistency proof from the ledger's first N
entries to its head (one base64 hash per line, as C2SP
tlog-witness sends it).`, []string{"origin", "key", "seq", "from"}},
	{"keygen", `makes a signing key pair: the private key into --key FILE (keep
it secret, e.g. the OPTR_LEDGER_KEY secret of the repository),
the public key into FILE.pub and on stdout. The key is named
after the origin it signs: --origin, else optr/$GITHUB_REPOSITORY,
else optr/local.`, []string{"origin", "key"}},
}

// ledgerFlags are the flags of every ledger subcommand.
type ledgerFlags struct {
	path, origin, key, keyPublic, proof string
	consistency, repo                   string
	checkpoints, witnessKeys            []string
	witness, asJSON                     bool
	seq, from                           int64
	fromSet                             bool
	kind, workflow                      string
	last, quorum                        int
	since, by, html                     string
	noVerify                            bool
}

func (c *CLI) cmdLedger(ctx context.Context, args []string) error {
	fs := c.flags("ledger")
	var f ledgerFlags
	fs.StringVar(&f.path, "ledger", ".optr/ledger.jsonl", "ledger file (its active segment)")
	fs.StringArrayVar(&f.checkpoints, "checkpoint", nil, "verify: a checkpoint the ledger must hold (repeatable)")
	fs.StringVar(&f.keyPublic, "key-public", "", "verify: public key a checkpoint's signature must verify with")
	fs.BoolVar(&f.witness, "witness", false, "verify: walk the git history of the ledger")
	fs.StringVar(&f.proof, "proof", "", "verify: an inclusion proof to check")
	fs.StringVar(&f.consistency, "consistency", "", "verify: a consistency proof from the first --checkpoint to the second")
	fs.StringArrayVar(&f.witnessKeys, "witness-key", nil, "verify: a witness's verifier key; each checkpoint must be cosigned by --witness-quorum of them (repeatable)")
	fs.IntVar(&f.quorum, "witness-quorum", 0, "verify: how many of the --witness-key witnesses must cosign (default all)")
	fs.StringVar(&f.repo, "repo", "", "verify --witness: also check the heads optr published in the progress comments of owner/repo")
	fs.Int64Var(&f.from, "from", 0, "prove: the size to prove consistency from")
	fs.StringVar(&f.origin, "origin", "", "checkpoint, prove, keygen: the log's origin (default optr/<owner>/<repo> in Actions, else optr/local)")
	fs.StringVar(&f.key, "key", "", "checkpoint, prove: private key file to sign with (default $OPTR_LEDGER_KEY); keygen: where to write it")
	fs.Int64Var(&f.seq, "seq", 0, "prove: the entry to prove")
	fs.BoolVar(&f.asJSON, "json", false, "show: print the raw JSON lines; stats: print JSON")
	fs.StringVar(&f.kind, "kind", "", "show: only entries of this kind")
	fs.StringVar(&f.workflow, "workflow", "", "show: only entries of this workflow")
	fs.IntVar(&f.last, "last", 0, "show: only the last N entries (after the other filters)")
	fs.StringVar(&f.since, "since", "30d", "stats: the runs recorded since then (30d, 2w, 12h, or a date: 2026-11-01)")
	fs.StringVar(&f.by, "by", standings.ByAgent, "stats: agent, model, constraint or workflow")
	fs.StringVar(&f.html, "html", "", "stats: also write the standings as one HTML page into this file")
	fs.BoolVar(&f.noVerify, "no-verify", false, "stats: do not verify the ledger's lines before counting them (said in the output)")
	if err := c.parseUsage(fs, func() string { return ledgerUsage(fs) }, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		c.printUsage(c.Stderr, fs, ledgerUsage(fs))
		return usageErr(errors.New("ledger needs a subcommand: verify, show, stats, checkpoint, prove or keygen"))
	}
	sub := fs.Arg(0)
	f.fromSet = fs.Changed("from")
	if err := onlyFor(fs, sub); err != nil {
		return err
	}
	switch sub {
	case "verify":
		return c.ledgerVerify(ctx, f)
	case "show":
		return c.ledgerShow(f)
	case "stats":
		return c.ledgerStats(ctx, f)
	case "checkpoint":
		return c.ledgerCheckpoint(f)
	case "prove":
		return c.ledgerProve(f)
	case "keygen":
		return c.ledgerKeygen(f)
	}
	return usageErr(fmt.Errorf("unknown ledger subcommand %q (want verify, show, stats, checkpoint, prove or keygen)", sub))
}

// ledgerSubcommand returns the flags sub reads, and whether it is one of
// the ledger's subcommands.
func ledgerSubcommand(sub string) (flags []string, ok bool) {
	for _, s := range ledgerSubcommands {
		if s.name == sub {
			return append([]string{"ledger", "help"}, s.flags...), true
		}
	}
	return nil, false
}

// ledgerUsage is the usage of the ledger command as parsed into fs: with
// one subcommand named, that subcommand's alone, the flags it does not
// read hidden; else every subcommand's.
func ledgerUsage(fs *pflag.FlagSet) string {
	if fs.NArg() == 1 {
		if flags, ok := ledgerSubcommand(fs.Arg(0)); ok {
			fs.VisitAll(func(fl *pflag.Flag) { fl.Hidden = !slices.Contains(flags, fl.Name) })
			for _, s := range ledgerSubcommands {
				if s.name == fs.Arg(0) {
					return "optr ledger " + s.name + " [flags]\n\n" + s.help
				}
			}
		}
	}
	var b strings.Builder
	names := make([]string, len(ledgerSubcommands))
	for i, s := range ledgerSubcommands {
		names[i] = s.name
	}
	b.WriteString("optr ledger " + strings.Join(names, "|") + " [flags]\n")
	for _, s := range ledgerSubcommands {
		b.WriteString("\n")
		for i, line := range strings.Split(s.help, "\n") {
			if i == 0 {
				fmt.Fprintf(&b, "%-12s%s", s.name, line)
			} else {
				b.WriteString("\n" + strings.Repeat(" ", 12) + line)
			}
		}
	}
	return b.String()
}

// onlyFor refuses a flag given to a subcommand that does not read it.
func onlyFor(fs *pflag.FlagSet, sub string) error {
	ok, known := ledgerSubcommand(sub)
	if !known {
		return nil
	}
	var err error
	fs.Visit(func(fl *pflag.Flag) {
		if err == nil && !slices.Contains(ok, fl.Name) {
			err = usageErr(fmt.Errorf("--%s does not apply to ledger %s", fl.Name, sub))
		}
	})
	return err
}

// failed is a verification failure: exit 1.
func failed(format string, args ...any) error {
	return &ExitError{Code: ExitFailed, Err: fmt.Errorf(format, args...)}
}

func (c *CLI) ledgerVerify(ctx context.Context, f ledgerFlags) error {
	if err := f.checkVerify(); err != nil {
		return err
	}
	vkey, err := readKeyFile(f.keyPublic, "public key")
	if err != nil {
		return err
	}
	var cps []ledger.TreeHead
	var sizes []int64
	for _, file := range f.checkpoints {
		cp, err := c.openCheckpoint(f, file, vkey)
		if err != nil {
			return err
		}
		cps, sizes = append(cps, cp), append(sizes, cp.Size)
	}
	if f.consistency != "" {
		return c.verifyConsistency(f.consistency, f.checkpoints, cps)
	}
	var pubs []witness.Published
	if f.witness {
		if pubs, err = c.publishedHeads(ctx, f.repo); err != nil {
			return err
		}
	}
	ts, err := ledger.VerifyTree(f.path, append(sizes, witness.PublishedSizes(pubs)...)...)
	if err != nil {
		return c.verifyFailure(f.path, err)
	}
	fmt.Fprintf(c.Stdout, "%s: valid, %d entries, head %s\n", f.path, ts.Entries, headHash(ts.Head.Hash))
	for i, cp := range cps {
		if err := ts.Holds(cp); err != nil {
			return failed("%s: %w", f.checkpoints[i], err)
		}
		fmt.Fprintf(c.Stdout, "checkpoint %s: holds (%s, %d entries)\n", f.checkpoints[i], cp.Origin, cp.Size)
	}
	if f.proof != "" {
		if err := c.verifyProof(f.proof, vkey, ts); err != nil {
			return err
		}
	}
	if f.witness {
		return c.ledgerWitness(ctx, f.path, ts, pubs)
	}
	return nil
}

// checkVerify refuses verify flags that do not go together.
func (f ledgerFlags) checkVerify() error {
	switch {
	case f.consistency != "" && len(f.checkpoints) != 2:
		return usageErr(errors.New("--consistency FILE needs two checkpoints: --checkpoint OLD --checkpoint NEW"))
	case f.consistency != "" && (f.proof != "" || f.witness):
		return usageErr(errors.New("--consistency checks a proof between two checkpoints and reads no ledger: give --proof and --witness in another verify"))
	case len(f.witnessKeys) > 0 && len(f.checkpoints) == 0:
		return usageErr(errors.New("--witness-key checks the cosignatures of a checkpoint: give it with --checkpoint FILE"))
	case f.quorum != 0 && len(f.witnessKeys) == 0:
		return usageErr(errors.New("--witness-quorum counts the --witness-key witnesses: name them"))
	case f.quorum < 0 || f.quorum > len(f.witnessKeys):
		return usageErr(fmt.Errorf("--witness-quorum must be 1 to the %d witness keys given, got %d", len(f.witnessKeys), f.quorum))
	case f.repo != "" && !f.witness:
		return usageErr(errors.New("--repo names where optr published its heads, for --witness: give --witness too"))
	}
	return nil
}

// openCheckpoint reads a --checkpoint file: signed by --key-public's key
// when one is given, of --origin when given, and cosigned by enough of
// the --witness-key witnesses when they are named.
func (c *CLI) openCheckpoint(f ledgerFlags, file, vkey string) (ledger.TreeHead, error) {
	data, err := inputfile.ReadFile(file, maxSmallFile)
	if err != nil {
		return ledger.TreeHead{}, usageErr(fmt.Errorf("read checkpoint: %w", err))
	}
	cp, signed, err := ledger.OpenCheckpoint(data, vkey)
	if err != nil {
		return cp, failed("checkpoint %s: %w", file, err)
	}
	if f.origin != "" && cp.Origin != f.origin {
		return cp, failed("checkpoint %s is of origin %q, not %q: it is a checkpoint of another ledger", file, cp.Origin, f.origin)
	}
	if signed && vkey == "" {
		fmt.Fprintf(c.Stderr, "optr: checkpoint %s is signed, but without --key-public its signature was not checked\n", file)
	}
	if len(f.witnessKeys) > 0 {
		if err := c.checkCosigners(file, ledger.TrimBlankLine(data), f.witnessKeys, f.quorum); err != nil {
			return cp, err
		}
	}
	return cp, nil
}

// verifyFailure turns a failed verify into exit 1 naming the file and line,
// or a usage error for a ledger that is not there.
func (c *CLI) verifyFailure(path string, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return usageErr(fmt.Errorf("ledger %s does not exist", path))
	}
	var ve *ledger.VerifyError
	if errors.As(err, &ve) {
		msg := err.Error()
		if !strings.Contains(msg, path) {
			msg = fmt.Sprintf("%s: %s", path, msg)
		}
		return &ExitError{Code: ExitFailed, Err: errors.New(msg)}
	}
	return err
}

func headHash(h string) string {
	if h == "" {
		return "(empty)"
	}
	return h
}

// readKeyFile reads a key file; an empty name is no key.
func readKeyFile(name, what string) (string, error) {
	if name == "" {
		return "", nil
	}
	b, err := inputfile.ReadFile(name, maxSmallFile)
	if err != nil {
		return "", usageErr(fmt.Errorf("read the %s: %w", what, err))
	}
	return strings.TrimSpace(string(b)), nil
}

// origin is the checkpoint origin: the flag, else optr/<owner>/<repo> in
// GitHub Actions, else optr/local.
func (c *CLI) origin(flag string) string {
	if flag != "" {
		return flag
	}
	if c.Getenv("GITHUB_ACTIONS") == "true" {
		return ledger.Origin(c.Getenv("GITHUB_REPOSITORY"))
	}
	return ledger.LocalOrigin
}

// ledgerWitness checks the ledger against its git history, the heads this
// clone verified before, and the heads optr published in its comments.
func (c *CLI) ledgerWitness(ctx context.Context, path string, ts ledger.TreeSummary, pubs []witness.Published) error {
	rep, err := witness.Check(ctx, path)
	if err == nil && pubs != nil {
		err = witness.CheckPublished(path, ts, pubs)
	}
	var werr *witness.Error
	if errors.As(err, &werr) {
		return &ExitError{Code: ExitFailed, Err: err}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "witness: %d commits, each extending the one before; %d trailers, each matching its ledger; the working tree extends HEAD (%d entries)\n", rep.Commits, rep.Trailers, rep.Head.Seq)
	if rep.Remembered > 0 {
		fmt.Fprintf(c.Stdout, "witness: the %d head(s) this clone verified before are still in the ledger\n", rep.Remembered)
	}
	if rep.NotRemembered != nil {
		fmt.Fprintf(c.Stderr, "optr: %v\n", rep.NotRemembered)
	}
	if pubs != nil {
		fmt.Fprintf(c.Stdout, "witness: the %d head(s) optr published in its comments are in the ledger\n", len(pubs))
	}
	return nil
}

// publishedHeads reads the heads optr published in its final progress
// comments on repo's issues (found by marker and author, architecture §6):
// with --repo, or in GitHub Actions the workflow's repository. nil when
// there is no repository to read.
func (c *CLI) publishedHeads(ctx context.Context, repo string) ([]witness.Published, error) {
	token := c.Getenv("GITHUB_TOKEN")
	if token == "" {
		token = c.Getenv("GH_TOKEN")
	}
	if repo == "" && c.Getenv("GITHUB_ACTIONS") == "true" {
		if repo = c.Getenv("GITHUB_REPOSITORY"); repo != "" && token == "" {
			fmt.Fprintf(c.Stderr, "optr: the heads optr published in %s's comments are not checked: give the step GITHUB_TOKEN (env: GITHUB_TOKEN: ${{ github.token }})\n", repo)
			return nil, nil
		}
	}
	if repo == "" {
		return nil, nil
	}
	gh, err := github.New(ctx, github.Options{APIURL: c.Getenv("GITHUB_API_URL"), Token: token, Repository: repo, HTTPClient: c.HTTPClient})
	if err != nil {
		return nil, usageErr(fmt.Errorf("--repo: %w", err))
	}
	comments, err := gh.OwnComments(ctx, comment.KindRun)
	if err != nil {
		return nil, fmt.Errorf("witness: read optr's comments: %w", err)
	}
	pubs := []witness.Published{}
	for _, cm := range comments {
		p, ok, err := witness.ParsePublished(cm.URL, cm.Body)
		if err != nil {
			return nil, &ExitError{Code: ExitFailed, Err: err}
		}
		if ok {
			pubs = append(pubs, p)
		}
	}
	return pubs, nil
}
