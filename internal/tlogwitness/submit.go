package tlogwitness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/optr-dev/optr/internal/bounded"
	"github.com/optr-dev/optr/internal/clock"
	"github.com/optr-dev/optr/internal/ledger"
)

// Why a witness did not cosign; Result.Err wraps one of these.
var (
	// ErrUnreachable: no answer, or a server error, on every attempt.
	ErrUnreachable = errors.New("the witness did not answer")
	// ErrUnknownLog: 404, the witness does not witness this origin.
	ErrUnknownLog = errors.New("the witness does not know this log")
	// ErrUntrustedKey: 403, no signature on the checkpoint verifies with a
	// key the witness trusts for the origin.
	ErrUntrustedKey = errors.New("the witness does not trust the ledger's signing key")
	// ErrInconsistent: 422, the checkpoint does not extend the one the
	// witness cosigned last (the consistency proof did not verify, or the
	// witness cosigned another root at the same size): the ledger was
	// forked or rewritten after it was witnessed.
	ErrInconsistent = errors.New("the witness found the checkpoint inconsistent with the one it cosigned")
	// ErrAhead: the witness has cosigned a larger checkpoint already.
	ErrAhead = errors.New("the witness has cosigned a larger checkpoint")
	// ErrRefused: any other refusal (400, an unexpected status, an answer
	// without a valid cosignature, a proof optr could not make).
	ErrRefused = errors.New("the witness refused the checkpoint")
)

// MaxRequests bounds the requests Submit sends one witness: one when the
// witness last cosigned the size given, two when it names another size
// (409) and the checkpoint is sent again from there, and one more for a
// transient failure or a concurrent submission.
const MaxRequests = 3

// maxAnswer bounds a witness's answer: a few signature lines.
const maxAnswer = 64 << 10

// sizeType is the Content-Type of a 409 answer that names the witness's
// size.
const sizeType = "text/x.tlog.size"

// Client submits checkpoints to witnesses. The zero Client is ready.
type Client struct {
	// HTTP sends the requests (nil: http.DefaultClient); whatever its
	// CheckRedirect, no redirect is followed.
	HTTP *http.Client
	// Timeout bounds one request (0: 20 seconds).
	Timeout time.Duration
	// Sleep waits before a retry, or until ctx ends (nil: a timer).
	Sleep func(ctx context.Context, d time.Duration) error
}

// Checkpoint is a signed checkpoint to be cosigned.
type Checkpoint struct {
	// Signed is the checkpoint as a signed note (ledger.TreeHead.Sign).
	Signed []byte
	// Size is its entry count.
	Size int64
	// Origin is its origin, for messages.
	Origin string
}

// Prover makes the consistency proof from the ledger's first from entries
// to the checkpoint (ledger.ConsistencyOf, ledger.ProveConsistency).
type Prover func(from int64) (tlog.TreeProof, error)

// Result is what one witness answered.
type Result struct {
	Witness Witness
	// Cosignatures are the witness's cosignatures on the checkpoint,
	// verified with its key; none when it did not cosign.
	Cosignatures []note.Signature
	// Requests is how many requests were sent to it.
	Requests int
	// Err says why it did not cosign (wrapping one of the Err values),
	// naming the witness: a warning, never a failed run.
	Err error
}

// SubmitAll submits cp to every witness at once. old is the size the
// witnesses most likely cosigned last (the ledger's size before the run's
// entries); a witness that cosigned another one says so and is sent the
// checkpoint again from there. prove may be called concurrently; each
// proof is made once.
func (c *Client) SubmitAll(ctx context.Context, ws []Witness, cp Checkpoint, old int64, prove Prover) []Result {
	out := make([]Result, len(ws))
	proofs := &proofCache{prove: prove, done: map[int64]proofResult{}}
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Go(func() { out[i] = c.Submit(ctx, w, cp, old, proofs.get) })
	}
	wg.Wait()
	return out
}

// Submit asks witness w to cosign cp (C2SP tlog-witness add-checkpoint),
// starting from size old, in at most MaxRequests requests.
func (c *Client) Submit(ctx context.Context, w Witness, cp Checkpoint, old int64, prove Prover) Result {
	res := Result{Witness: w}
	from := min(max(old, 0), cp.Size)
	refuse := func(kind error, format string, args ...any) Result {
		res.Err = fmt.Errorf("witness %s (%s): %s: %w", w.Name(), w.URL, fmt.Sprintf(format, args...), kind)
		return res
	}
	var lastErr error
	for res.Requests < MaxRequests {
		if lastErr != nil {
			if err := c.sleep(ctx, time.Second); err != nil {
				break
			}
		}
		p, err := prove(from)
		if err != nil {
			return refuse(ErrRefused, "cannot prove that this checkpoint extends size %d, the last it cosigned: %v", from, err)
		}
		res.Requests++
		a, err := c.post(ctx, w, body(from, p, cp.Signed))
		if err != nil {
			lastErr = err
			continue
		}
		switch a.status {
		case http.StatusOK:
			sigs, err := cosignatures(w, cp.Signed, a.body)
			if err != nil {
				return refuse(ErrRefused, "%v", err)
			}
			res.Cosignatures = sigs
			return res
		case http.StatusConflict:
			size, ok := a.size()
			switch {
			case !ok:
				return refuse(ErrRefused, "it answered 409 Conflict without its size (%s)%s", sizeType, a.excerpt())
			case size > cp.Size:
				return refuse(ErrAhead, "it has cosigned size %d, beyond this checkpoint's %d: a later run's checkpoint was witnessed first, and covers this one", size, cp.Size)
			case size == from:
				return refuse(ErrRefused, "it answered 409 Conflict naming size %d, the size it was sent", size)
			}
			from, lastErr = size, nil
		case http.StatusNotFound:
			return refuse(ErrUnknownLog, "it does not witness the log %s (404 Not Found): ask its operator to add it, with the ledger's public key", cp.Origin)
		case http.StatusForbidden:
			return refuse(ErrUntrustedKey, "no signature on the checkpoint verifies with a key it trusts for %s (403 Forbidden): give its operator the ledger's public key (the .pub file of `optr ledger keygen`)", cp.Origin)
		case http.StatusUnprocessableEntity:
			if from == cp.Size {
				return refuse(ErrInconsistent, "it has cosigned a different checkpoint of size %d (422 Unprocessable Entity): the ledger was forked or rewritten after it was witnessed", from)
			}
			return refuse(ErrInconsistent, "it refused the consistency proof from size %d, the last it cosigned, to %d (422 Unprocessable Entity): the ledger it witnessed is not a prefix of this one; it was forked or rewritten", from, cp.Size)
		case http.StatusBadRequest:
			return refuse(ErrRefused, "it refused the request (400 Bad Request)%s", a.excerpt())
		case http.StatusTooManyRequests:
			lastErr = fmt.Errorf("429 Too Many Requests%s", a.excerpt())
		default:
			if a.status >= 300 && a.status < 400 {
				return refuse(ErrRefused, "it answered %d %s to %s; optr sends a checkpoint only to the URL the config names and follows no redirect: if the witness moved, put its new URL in ledger.witnesses", a.status, http.StatusText(a.status), quoteURL(a.location))
			}
			if a.status >= 500 {
				lastErr = fmt.Errorf("%d %s%s", a.status, http.StatusText(a.status), a.excerpt())
				continue
			}
			return refuse(ErrRefused, "it answered %d %s%s", a.status, http.StatusText(a.status), a.excerpt())
		}
	}
	if lastErr == nil {
		lastErr = ctx.Err()
	}
	return refuse(ErrUnreachable, "no cosignature after %d request(s): %v", res.Requests, lastErr)
}

// body is an add-checkpoint request body: the old size line, the proof
// lines, an empty line, and the checkpoint.
func body(from int64, p tlog.TreeProof, signed []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "old %d\n", from)
	b.Write(ledger.FormatConsistency(p))
	b.WriteByte('\n')
	b.Write(signed)
	return b.Bytes()
}

// answer is a witness's HTTP answer.
type answer struct {
	status      int
	contentType string
	body        []byte
	// location is where a redirect pointed (never followed).
	location string
}

// noRedirects is c's HTTP client made to follow no redirect: its
// transport, jar and timeout, with CheckRedirect answering the redirect
// itself, so that Submit refuses it.
func (c *Client) noRedirects() *http.Client {
	hc := http.DefaultClient
	if c.HTTP != nil {
		hc = c.HTTP
	}
	cp := *hc
	cp.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cp
}

// post sends one add-checkpoint request and reads the answer, at most
// maxAnswer bytes of it. A transport error, or an answer too long to be
// one, is an error.
func (c *Client) post(ctx context.Context, w Witness, reqBody []byte) (answer, error) {
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.addCheckpoint(), bytes.NewReader(reqBody))
	if err != nil {
		return answer{}, err
	}
	resp, err := c.noRedirects().Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		// Only the URL the config names is the witness: a redirect would
		// hand the checkpoint to a host nobody configured, and its answer
		// would reach the log. Nothing of the answer is read.
		return answer{status: resp.StatusCode, location: resp.Header.Get("Location")}, nil
	}
	b, err := bounded.ReadAll(resp.Body, maxAnswer)
	if err != nil {
		return answer{}, fmt.Errorf("read the answer: %w", err)
	}
	return answer{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: b}, nil
}

// quoteURL quotes a redirect's Location for a message: valid UTF-8, at
// most 200 bytes, "no Location" when there is none.
func quoteURL(loc string) string {
	if loc == "" {
		return "no Location"
	}
	loc = strings.ToValidUTF8(loc, "?")
	if len(loc) > 200 {
		loc = loc[:200] + "…"
	}
	return fmt.Sprintf("%q", loc)
}

// size reads the witness's size from a 409 answer that names it.
func (a answer) size() (int64, bool) {
	mt, _, err := mime.ParseMediaType(a.contentType)
	if err != nil || mt != sizeType {
		return 0, false
	}
	s, ok := strings.CutSuffix(string(a.body), "\n")
	n, err := strconv.ParseInt(s, 10, 64)
	if !ok || err != nil || n < 0 || strconv.FormatInt(n, 10) != s {
		return 0, false
	}
	return n, true
}

// excerpt is the start of a refusal's body, for the message.
func (a answer) excerpt() string {
	s := strings.TrimSpace(strings.ToValidUTF8(string(a.body), "?"))
	if s == "" {
		return ""
	}
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return fmt.Sprintf(": %q", s)
}

// cosignatures checks a 200 answer: signature lines, among them a
// cosignature of the checkpoint by w's key. Signatures by other keys are
// ignored, as the protocol says.
func cosignatures(w Witness, signed, lines []byte) ([]note.Signature, error) {
	if !bytes.HasPrefix(lines, []byte("— ")) || !bytes.HasSuffix(lines, []byte("\n")) {
		return nil, fmt.Errorf("it answered 200 without signature lines%s", answer{body: lines}.excerpt())
	}
	n, err := note.Open(append(bytes.Clone(signed), lines...), note.VerifierList(w.verifier))
	if err != nil {
		var unverified *note.UnverifiedNoteError
		if errors.As(err, &unverified) {
			return nil, fmt.Errorf("it answered without a cosignature by its key %s", w.Key)
		}
		return nil, fmt.Errorf("its cosignature does not verify with its key %s: %v", w.Key, err)
	}
	return n.Sigs, nil
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	return clock.Sleep(ctx, d)
}

// proofCache makes each proof once for all witnesses.
type proofCache struct {
	prove Prover
	mu    sync.Mutex
	done  map[int64]proofResult
}

type proofResult struct {
	p   tlog.TreeProof
	err error
}

func (pc *proofCache) get(from int64) (tlog.TreeProof, error) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if r, ok := pc.done[from]; ok {
		return r.p, r.err
	}
	p, err := pc.prove(from)
	pc.done[from] = proofResult{p, err}
	return p, err
}
