package llm

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
)

func TestTransportError(t *testing.T) {
	t.Parallel()
	post := func(err error) error {
		return &url.Error{Op: "Post", URL: "https://api.example/v1/responses", Err: err}
	}
	tests := []struct {
		name   string
		err    error
		class  agent.Class
		reason string
	}{
		{"unknown host", post(&net.OpError{Op: "dial", Err: &net.DNSError{Name: "api.example", Err: "no such host", IsNotFound: true}}), agent.Fatal, "bad_config"},
		{"DNS server trouble", post(&net.OpError{Op: "dial", Err: &net.DNSError{Name: "api.example", Err: "server misbehaving", IsTemporary: true}}), agent.Transient, "connection"},
		{"untrusted certificate", post(&tls.CertificateVerificationError{Err: errors.New("x509: unknown authority")}), agent.Fatal, "bad_config"},
		{"dial timeout", post(&net.OpError{Op: "dial", Err: os.ErrDeadlineExceeded}), agent.Transient, "timeout"},
		{"reset", post(&net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), agent.Transient, "connection"},
		{"refused", post(&net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), agent.Transient, "connection"},
		{"EOF", post(io.EOF), agent.Transient, "connection"},
		{"unexpected EOF reading the body", fmt.Errorf("error reading response body: %w", io.ErrUnexpectedEOF), agent.Transient, "connection"},
		{"bad JSON", fmt.Errorf("error parsing response json: %w", &json.SyntaxError{Offset: 3}), agent.Transient, "bad_response"},
		{"SDK refused to build the request", errors.New("azure: deployment routing requires a non-empty model field"), agent.Fatal, "bad_config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := transportError(tt.err)
			if diff := cmp.Diff([]string{string(tt.class), tt.reason}, []string{string(e.Class), e.Reason}); diff != "" {
				t.Errorf("transportError(%v) (-want +got):\n%s", tt.err, diff)
			}
			if !errors.Is(e, tt.err) {
				t.Errorf("the classified error does not wrap its cause")
			}
		})
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	const key = "sk-secret-123456"
	tests := []struct {
		name   string
		err    error
		secret string
		want   string
	}{
		{"no key in the message", errors.New("connection refused"), key, "connection refused"},
		{"key in a URL", &url.Error{Op: "Post", URL: "https://h/v1?key=" + key, Err: io.EOF}, key, `Post "https://h/v1?key=[redacted]": EOF`},
		{"no key configured", errors.New("anything"), "", "anything"},
		{"nil", nil, key, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := redact(tt.err, tt.secret)
			msg := ""
			if got != nil {
				msg = got.Error()
			}
			if diff := cmp.Diff(tt.want, msg); diff != "" {
				t.Errorf("redact (-want +got):\n%s", diff)
			}
			// Nothing reachable through the chain may hold the key either.
			for e := got; e != nil; e = errors.Unwrap(e) {
				if tt.secret != "" && strings.Contains(e.Error(), tt.secret) {
					t.Errorf("the chain holds the key: %q", e.Error())
				}
			}
		})
	}
}
