package llm

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
)

// statusOverloaded is Anthropic's "overloaded" status.
const statusOverloaded = 529

// googleBadKey starts the message with which Google's APIs refuse a key
// they do not know: status 400 INVALID_ARGUMENT, not 401.
const googleBadKey = "API key not valid"

// classify turns a failed request into a classified *agent.Error. ctx is the
// caller's context, attemptCtx the one bounded by the attempt timeout, raw
// the HTTP response when there was one. An *agent.Error the caller returned
// (the copilot caller classifies the CLI's own failures, and an unusable
// agent's) keeps its class and reason. The key never survives into the
// message.
func (a *llmAgent) classify(ctx, attemptCtx context.Context, raw *http.Response, err error) *agent.Error {
	var e, own *agent.Error
	switch {
	case ctx.Err() != nil:
		e = stopped(ctx, err)
	case errors.Is(attemptCtx.Err(), context.DeadlineExceeded):
		e = &agent.Error{Class: agent.Transient, Reason: "timeout", Err: fmt.Errorf(
			"no answer within the attempt timeout of %s; raise attempt-timeout in the agent's config if the model needs longer: %w", a.timeout, err)}
	case errors.Is(err, errOtherOrigin):
		// The endpoint answered with a redirect keepOrigin did not follow.
		e = &agent.Error{Class: agent.Fatal, Reason: "bad_config", Err: err}
	case raw == nil && errors.As(err, &own):
		c := *own
		e = &c
	case raw != nil && raw.StatusCode >= 400:
		e = a.statusError(raw)
	case raw != nil:
		e = &agent.Error{Class: agent.Transient, Reason: "bad_response", Status: raw.StatusCode, Err: fmt.Errorf(
			"the API answered HTTP %d with a body that is not the JSON it documents (cut off or garbled): %w", raw.StatusCode, err)}
	default:
		e = transportError(err)
	}
	e.Err = redact(e.Err, a.secret)
	return e
}

// stopped classifies a failure after the caller's context ended: a
// cancelled run is Fatal (it is being stopped), a deadline is a timeout.
func stopped(ctx context.Context, err error) *agent.Error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return &agent.Error{Class: agent.Fatal, Reason: "canceled", Err: fmt.Errorf("the run was stopped before the model answered: %w", err)}
	}
	return &agent.Error{Class: agent.Transient, Reason: "timeout", Err: fmt.Errorf("the agent's time ran out before the model answered: %w", err)}
}

// statusError classifies an HTTP error answer.
func (a *llmAgent) statusError(raw *http.Response) *agent.Error {
	apiErr := newAPIError(a.provider, raw)
	apiErr.Message = a.redact(apiErr.Message)
	status := raw.StatusCode
	if a.copilotAuth && (status == http.StatusUnauthorized || status == http.StatusForbidden) {
		// Copilot refusing the workflow's token: a permission or policy is
		// missing, which only a maintainer can add.
		e := copilotRefused(&a.base, status, apiErr.Message)
		e.RetryAfter = RetryAfter(raw.Header, time.Now())
		return e
	}
	class, reason := agent.Fatal, "bad_request"
	switch {
	case status == http.StatusUnauthorized, status == http.StatusBadRequest && strings.Contains(apiErr.Message, googleBadKey):
		reason = "unauthorized"
		apiErr.Advice = fmt.Sprintf("check the key in %s", a.keyVar)
		if a.keyVar == "" {
			apiErr.Advice = "the endpoint wants a key: name the variable that holds it in api-key-env"
		}
	case status == http.StatusForbidden:
		reason = "forbidden"
		apiErr.Advice = fmt.Sprintf("the key in %s may not use %s", a.keyVar, a.model)
	case status == http.StatusNotFound && !a.modelNotFound(apiErr):
		// Nothing at the path: the base URL or the wire format is wrong,
		// not the model.
		reason = "not_found"
		apiErr.Message, apiErr.Advice = "", a.pathAdvice(raw) // the body only says "not found"
	case status == http.StatusNotFound:
		reason = "unknown_model"
		apiErr.Advice = fmt.Sprintf("check that model %q exists and that base-url points at the API", a.model)
		if a.provider == config.ProviderAzureOpenAI {
			apiErr.Advice = fmt.Sprintf("check that deployment %q exists on the endpoint, and api-version", a.model)
		}
	case status == http.StatusGone:
		// The endpoint was retired for good (as GitHub Models was on
		// 2026-07-30): the body says so, and no retry brings it back.
		reason = "gone"
		apiErr.Advice = "the endpoint was retired; configure another provider, such as copilot"
	case status == http.StatusRequestTimeout:
		class, reason = agent.Transient, "timeout"
	case status == http.StatusConflict:
		class, reason = agent.Transient, "conflict"
	case status == http.StatusTooManyRequests && (apiErr.Code == "insufficient_quota" || apiErr.Type == "insufficient_quota"):
		reason = "quota_exceeded"
		apiErr.Advice = "the account is out of quota or credit; add credit or use another key"
	case status == http.StatusTooManyRequests:
		class, reason = agent.Transient, "rate_limited"
	case status == statusOverloaded:
		class, reason = agent.Transient, "overloaded"
	case status >= 500:
		class, reason = agent.Transient, "server_error"
	case apiErr.Code == "content_filter" || apiErr.Code == "content_policy_violation":
		class, reason = agent.Systematic, "content_filter"
		apiErr.Advice = "the provider's content filter refused the prompt; rephrase the intent"
	case status == http.StatusRequestEntityTooLarge:
		apiErr.Advice = "the prompt is larger than the model accepts; shorten the intent or the constraints"
	default:
		apiErr.Advice = "check model, max-tokens and api-version in the agent's config"
	}
	// The provider's explicit word that a retry can succeed wins.
	if class != agent.Transient && raw.Header.Get("x-should-retry") == "true" {
		class = agent.Transient
	}
	return &agent.Error{Class: class, Reason: reason, Status: status, RetryAfter: RetryAfter(raw.Header, time.Now()), Err: apiErr}
}

// transportError classifies a failure without an HTTP answer.
func transportError(err error) *agent.Error {
	var (
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		netErr  net.Error
		opErr   *net.OpError
		urlErr  *url.Error
		synErr  *json.SyntaxError
		typeErr *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return &agent.Error{Class: agent.Fatal, Reason: "bad_config", Err: fmt.Errorf(
			"cannot resolve the API host %q; check base-url or the endpoint variable: %w", dnsErr.Name, err)}
	case errors.As(err, &certErr):
		return &agent.Error{Class: agent.Fatal, Reason: "bad_config", Err: fmt.Errorf(
			"the API's TLS certificate is not trusted; check base-url: %w", err)}
	case errors.As(err, &netErr) && netErr.Timeout():
		return &agent.Error{Class: agent.Transient, Reason: "timeout", Err: fmt.Errorf("the connection to the API timed out: %w", err)}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE), errors.As(err, &opErr), errors.As(err, &urlErr):
		return &agent.Error{Class: agent.Transient, Reason: "connection", Err: fmt.Errorf("the connection to the API failed: %w", err)}
	case errors.As(err, &synErr), errors.As(err, &typeErr):
		return &agent.Error{Class: agent.Transient, Reason: "bad_response", Err: fmt.Errorf(
			"the API's answer is not the JSON it documents (cut off or garbled): %w", err)}
	default:
		// No request reached the API: the SDK refused to build it, which the
		// same configuration will do again.
		return &agent.Error{Class: agent.Fatal, Reason: "bad_config", Err: fmt.Errorf(
			"could not send the request; check the agent's config: %w", err)}
	}
}
