package llm

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"sync"
)

// errAttemptOver refuses the model requests the Copilot CLI retries after a
// failed one: optr's recovery decides about retries, not the CLI.
var errAttemptOver = errors.New("optr: this attempt already failed; optr retries, not the Copilot CLI")

// oneRequest is the RoundTripper the Copilot CLI's model requests go
// through (the SDK's RequestHandler). Requests pass until the first one
// fails, with an HTTP error status or without an answer; that failure is
// kept for classification, failed is closed, and every later request is
// refused without reaching the network. Model-routing requests (see
// routingPaths) may fail without ending the attempt.
type oneRequest struct {
	next   http.RoundTripper
	failed chan struct{}

	mu  sync.Mutex
	res *http.Response
	err error
}

// RoundTrip implements http.RoundTripper.
func (g *oneRequest) RoundTrip(req *http.Request) (*http.Response, error) {
	g.mu.Lock()
	over := g.res != nil || g.err != nil
	g.mu.Unlock()
	if over {
		return nil, errAttemptOver
	}
	next := g.next
	if next == nil {
		next = http.DefaultTransport
	}
	res, err := next.RoundTrip(req)
	if routing(req) {
		// The CLI falls back on its own when model routing fails; the
		// request that matters is the model's.
		return res, err
	}
	switch {
	case err != nil:
		g.fail(nil, err)
	case res.StatusCode >= 400:
		body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		_ = res.Body.Close()
		kept := *res
		kept.Header = res.Header.Clone()
		kept.Body = io.NopCloser(bytes.NewReader(body))
		g.fail(&kept, nil)
		res.Body = io.NopCloser(bytes.NewReader(body))
	}
	return res, err
}

// routingPaths are the Copilot API's model-routing requests, which the
// CLI makes before the model request when no model is configured (auto
// mode) and whose failure it survives by choosing a model itself: POST
// /auto, then POST /models/session.
var routingPaths = map[string]bool{"/auto": true, "/models/session": true}

func routing(req *http.Request) bool {
	return req.Method == http.MethodPost && routingPaths[req.URL.Path]
}

func (g *oneRequest) fail(res *http.Response, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.res != nil || g.err != nil {
		return
	}
	g.res, g.err = res, err
	close(g.failed)
}

// failure returns the first failure, nil when there was none; an HTTP
// error answer is also stored in *raw for classification by status.
func (g *oneRequest) failure(raw **http.Response) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.res != nil:
		*raw = g.res
		return &httpStatusError{status: g.res.StatusCode}
	case g.err != nil:
		return g.err
	}
	return nil
}

// httpStatusError stands for an HTTP error answer whose details are in the
// response the classifier reads.
type httpStatusError struct{ status int }

func (e *httpStatusError) Error() string { return http.StatusText(e.status) }
