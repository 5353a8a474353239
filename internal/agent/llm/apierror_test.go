package llm

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestErrorFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		body               string
		typ, code, message string
	}{
		{"openai", `{"error": {"message": "Rate limit reached", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}`,
			"requests", "rate_limit_exceeded", "Rate limit reached"},
		{"anthropic", `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_1"}`,
			"overloaded_error", "", "Overloaded"},
		{"azure numeric code", `{"error": {"code": 429, "message": "Please retry after 6 seconds."}}`,
			"", "429", "Please retry after 6 seconds."},
		{"code with details", `{"error": {"code": "unknown_model", "message": "Unknown model: x", "details": "Unknown model: x"}}`,
			"", "unknown_model", "Unknown model: x"},
		{"error as a string", `{"error": "bad things", "code": "E1"}`, "", "E1", "bad things"},
		{"top-level message", `{"message": "Not Found", "documentation_url": "https://docs.github.com"}`, "", "", "Not Found"},
		{"null error falls back to message", `{"error": null, "message": "oops"}`, "", "", "oops"},
		{"html", "<html>\n<body>502 Bad Gateway</body>\n</html>", "", "", "<html> <body>502 Bad Gateway</body> </html>"},
		{"empty", "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			typ, code, msg := errorFields([]byte(tt.body))
			if diff := cmp.Diff([]string{tt.typ, tt.code, tt.message}, []string{typ, code, msg}); diff != "" {
				t.Errorf("errorFields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorFieldsClipsLongBodies(t *testing.T) {
	t.Parallel()
	_, _, msg := errorFields([]byte(strings.Repeat("é", 2000)))
	if n := utf8.RuneCountInString(msg); n > maxErrorMessage || !strings.HasSuffix(msg, "…") {
		t.Errorf("message is %d characters (%q…), want at most %d and marked as cut", n, msg[:20], maxErrorMessage)
	}
}

func FuzzErrorFields(f *testing.F) {
	for _, s := range []string{
		`{"error": {"message": "m", "type": "t", "code": "c"}}`,
		`{"type": "error", "error": {"type": "t", "message": "m"}}`,
		`{"error": "s"}`, `{"message": 1}`, `<html>`, `{"error": {"code": 1e999}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _, msg := errorFields(body)
		if n := utf8.RuneCountInString(msg); n > maxErrorMessage {
			t.Errorf("message is %d characters, want at most %d", n, maxErrorMessage)
		}
		if strings.ContainsAny(msg, "\n\r") {
			t.Errorf("message %q spans lines", msg)
		}
	})
}
