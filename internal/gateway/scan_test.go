package gateway

import (
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/provider"
)

// events splits stream with an sseScanner fed in pieces of n bytes.
func events(stream string, n int) []string {
	var out []string
	s := &sseScanner{event: func(d []byte) { out = append(out, string(d)) }}
	for b := []byte(stream); len(b) > 0; {
		k := min(n, len(b))
		s.write(b[:k])
		b = b[k:]
	}
	s.end()
	return out
}

// TestSSEScanner: events come out whole, whatever the pieces the stream
// arrives in, with LF, CRLF or CR line ends, several data lines joined,
// comments and other fields skipped, a last event without its blank line
// kept.
func TestSSEScanner(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, stream string
		want         []string
	}{
		{"lf", "event: a\ndata: {\"x\":1}\n\ndata: [DONE]\n\n", []string{`{"x":1}`, "[DONE]"}},
		{"crlf", "data: one\r\n\r\ndata:two\r\n\r\n", []string{"one", "two"}},
		{"cr", "data: one\r\rdata: two\r\r", []string{"one", "two"}},
		{"multi-line", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"comments and ids", ": keep-alive\nid: 7\nretry: 10\ndata: x\n\n", []string{"x"}},
		{"no data", "event: ping\n\n", nil},
		{"unended", "data: last", []string{"last"}},
		{"empty data", "data:\n\n", []string{""}},
	} {
		for n := 1; n <= len(tc.stream); n++ {
			if diff := cmp.Diff(tc.want, events(tc.stream, n)); diff != "" {
				t.Errorf("%s in pieces of %d (-want +got):\n%s", tc.name, n, diff)
				break
			}
		}
	}
}

// elements splits a JSON array with an arrayScanner fed in pieces of n
// bytes.
func elements(stream string, n int) []string {
	var out []string
	s := &arrayScanner{element: func(o []byte) { out = append(out, string(o)) }}
	for b := []byte(stream); len(b) > 0; {
		k := min(n, len(b))
		s.write(b[:k])
		b = b[k:]
	}
	return out
}

// TestArrayScanner: each element of a streamed JSON array, whatever the
// pieces, with brackets and escaped quotes inside strings.
func TestArrayScanner(t *testing.T) {
	t.Parallel()
	stream := "[{\"a\":\"}]{[\",\"b\":[1,{\"c\":\"\\\"}\"}]}\r\n,\r\n{\"d\":2}\n]"
	want := []string{`{"a":"}]{[","b":[1,{"c":"\"}"}]}`, `{"d":2}`}
	for n := 1; n <= len(stream); n++ {
		if diff := cmp.Diff(want, elements(stream, n)); diff != "" {
			t.Fatalf("in pieces of %d (-want +got):\n%s", n, diff)
		}
	}
}

// TestScannersBounded: an event or element past maxEvent is skipped, and
// the next one still comes out.
func TestScannersBounded(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", maxEvent+10)
	if got := events("data: "+big+"\n\ndata: next\n\n", 64<<10); !cmp.Equal(got, []string{"next"}) {
		t.Errorf("sse: %d events, want only the next", len(got))
	}
	if got := elements(`[{"a":"`+big+`"},{"b":1}]`, 64<<10); !cmp.Equal(got, []string{`{"b":1}`}) {
		t.Errorf("array: %d elements, want only the next", len(got))
	}
}

// FuzzSSEScanner: any bytes, in any two pieces, give the events they give
// whole; nothing panics.
func FuzzSSEScanner(f *testing.F) {
	f.Add("data: a\r\n\r\ndata: b\rdata: c\n\n", 3)
	f.Add("event: x\n:c\ndata:\n\n\n", 1)
	f.Fuzz(func(t *testing.T, stream string, cut int) {
		whole := events(stream, len(stream)+1)
		if cut <= 0 || cut > len(stream) {
			return
		}
		if diff := cmp.Diff(whole, events(stream, cut)); diff != "" {
			t.Errorf("pieces of %d differ from the whole (-whole +pieces):\n%s", cut, diff)
		}
	})
}

// FuzzArrayScanner: likewise for streamed JSON arrays; every element of
// a valid array is valid JSON.
func FuzzArrayScanner(f *testing.F) {
	f.Add(`[{"a":"]"},{"b":[{}]}]`, 2)
	f.Fuzz(func(t *testing.T, stream string, cut int) {
		whole := elements(stream, len(stream)+1)
		if cut > 0 && cut <= len(stream) {
			if diff := cmp.Diff(whole, elements(stream, cut)); diff != "" {
				t.Errorf("pieces of %d differ from the whole (-whole +pieces):\n%s", cut, diff)
			}
		}
		if gjson.Valid(stream) && gjson.Parse(stream).IsArray() {
			for _, e := range whole {
				if !gjson.Valid(e) {
					t.Errorf("element %q of a valid array is not JSON", e)
				}
			}
		}
	})
}

// TestIncludeUsage: a chat stream is asked for its usage, the agent's
// own stream options kept; a body that asks already is left alone, one
// that says false is changed, one that is no JSON object is not touched.
func TestIncludeUsage(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"model":"m","stream":true}`:                                      `{"stream_options":{"include_usage":true},"model":"m","stream":true}`,
		` {"stream":true,"stream_options":{ }}`:                            ` {"stream":true,"stream_options":{"include_usage":true }}`,
		`{"stream":true,"stream_options":{"include_obfuscation":false}}`:   `{"stream":true,"stream_options":{"include_usage":true,"include_obfuscation":false}}`,
		`{"stream":true,"stream_options":{"include_usage":true}}`:          `{"stream":true,"stream_options":{"include_usage":true}}`,
		`{"stream":true,"stream_options":{"include_usage" : false,"x":1}}`: `{"stream":true,"stream_options":{"include_usage" : true,"x":1}}`,
		`{"stream":true,"stream_options":"bad"}`:                           `{"stream":true,"stream_options":"bad"}`,
		`not json`:                                                         `not json`,
		`{}`:                                                               `{"stream_options":{"include_usage":true}}`,
	} {
		if got := string(includeUsage([]byte(in))); got != want {
			t.Errorf("includeUsage(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestTarget: a request's path goes below the upstream's base URL, the
// agent's base path (OpenAI's /v1) taken off, the query kept without a
// key.
func TestTarget(t *testing.T) {
	t.Parallel()
	grantOf := func(name, base string) *grant {
		f, _ := familyOf(name)
		u, _ := url.Parse(base)
		return &grant{fam: f, up: upstream{base: u}}
	}
	for _, tc := range []struct {
		g        *grant
		in, want string
	}{
		{grantOf(OpenAI, "https://api.openai.com/v1/"), "/v1/chat/completions", "https://api.openai.com/v1/chat/completions"},
		{grantOf(OpenAI, "https://host/openai/v1"), "/v1/responses?x=1", "https://host/openai/v1/responses?x=1"},
		{grantOf(OpenAI, "https://api.openai.com/v1"), "/chat/completions", "https://api.openai.com/v1/chat/completions"},
		{grantOf(OpenAI, "https://api.openai.com/v1"), "/v1x/y", "https://api.openai.com/v1/v1x/y"},
		{grantOf(Anthropic, "https://api.anthropic.com/"), "/v1/messages?beta=true", "https://api.anthropic.com/v1/messages?beta=true"},
		{grantOf(Gemini, "https://generativelanguage.googleapis.com"), "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=optr-gateway-x", "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"},
		{grantOf(Azure, "https://res.openai.azure.com"), "/openai/deployments/d%2Fx/chat/completions?api-version=2024-10-21", "https://res.openai.azure.com/openai/deployments/d%2Fx/chat/completions?api-version=2024-10-21"},
	} {
		in, _ := url.Parse(tc.in)
		if got := target(tc.g, in).String(); got != tc.want {
			t.Errorf("target(%s, %s) = %s, want %s", tc.g.up.base, tc.in, got, tc.want)
		}
	}
}

// TestAPIOf: the operations metered, from their paths, for every
// provider's own and OpenAI-compatible endpoints.
func TestAPIOf(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"/v1/messages":                                        "messages",
		"/v1/messages/count_tokens":                           "POST /v1/messages/count_tokens",
		"/v1/chat/completions":                                "chat-completions",
		"/v1beta/openai/chat/completions":                     "chat-completions",
		"/v1/responses":                                       "responses",
		"/openai/deployments/d/responses":                     "responses",
		"/v1/completions":                                     "completions",
		"/v1/embeddings":                                      "embeddings",
		"/v1beta/models/gemini-2.5-pro:generateContent":       "generate-content",
		"/v1beta/models/gemini-2.5-pro:streamGenerateContent": "stream-generate-content",
		"/v1beta/models/gemini-2.5-pro:countTokens":           "POST /v1beta/models/gemini-2.5-pro:countTokens",
	} {
		if _, got, _ := apiOf("POST", path); got != want {
			t.Errorf("apiOf(POST %s) = %q, want %q", path, got, want)
		}
	}
	if a, name, _ := apiOf("GET", "/v1/models"); a != apiOther || name != "GET /v1/models" {
		t.Errorf("GET /v1/models = %v %q", a, name)
	}
	if m := geminiModel("/v1beta/models/gemini-2.5-pro:generateContent"); m != "gemini-2.5-pro" {
		t.Errorf("geminiModel = %q", m)
	}
	if d := azureDeployment("/openai/deployments/dep/chat/completions"); d != "dep" {
		t.Errorf("azureDeployment = %q", d)
	}
}

// TestReadBody: each format's usage, its cached part, and a body without
// usage.
func TestReadBody(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a    api
		body string
		want reading
	}{
		{apiMessages, `{"model":"m","usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":100,"output_tokens":7}}`,
			reading{model: "m", usage: usageOfNumbers(115, 7, 100), reported: true, complete: true}},
		{apiChat, `{"model":"m","usage":{"prompt_tokens":50,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":20}}}`,
			reading{model: "m", usage: usageOfNumbers(50, 5, 20), reported: true, complete: true}},
		{apiResponses, `{"model":"m","usage":{"input_tokens":50,"output_tokens":5,"input_tokens_details":{"cached_tokens":30}}}`,
			reading{model: "m", usage: usageOfNumbers(50, 5, 30), reported: true, complete: true}},
		{apiGenerate, `{"modelVersion":"g","usageMetadata":{"promptTokenCount":40,"toolUsePromptTokenCount":2,"candidatesTokenCount":8,"thoughtsTokenCount":4,"cachedContentTokenCount":10}}`,
			reading{model: "g", usage: usageOfNumbers(42, 12, 10), reported: true, complete: true}},
		{apiChat, `{"model":"m","choices":[]}`, reading{model: "m", complete: true}},
		{apiChat, `{"model":"m","usage":null}`, reading{model: "m", complete: true}},
		{apiChat, `not json`, reading{}},
	} {
		if diff := cmp.Diff(tc.want, readBody(tc.a, []byte(tc.body)), cmp.AllowUnexported(reading{})); diff != "" {
			t.Errorf("readBody(%s) (-want +got):\n%s", tc.body, diff)
		}
	}
}

// TestFamilies: every provider the registry says the gateway serves has
// a family here, under the registry's gateway name, and no family is left
// without one.
func TestFamilies(t *testing.T) {
	t.Parallel()
	names := provider.GatewayNames()
	for _, name := range names {
		f, ok := familyOf(name)
		if !ok || f.name != name {
			t.Errorf("no family for gateway: %s", name)
		}
	}
	if len(families) != len(names) {
		t.Errorf("%d families for %d gateway names %v", len(families), len(names), names)
	}
}

// pieceReader reads one piece per Read, as an answer comes off the wire.
type pieceReader struct{ pieces []string }

func (p *pieceReader) Read(b []byte) (int, error) {
	if len(p.pieces) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.pieces[0])
	p.pieces[0] = p.pieces[0][n:]
	if p.pieces[0] == "" {
		p.pieces = p.pieces[1:]
	}
	return n, nil
}

// TestMeterAnswer: an answer metered off the wire, piece by piece, as the
// gateway meters it: a stream's use and end, a whole answer's, an answer
// without usage (unknown), a request that is no model call.
func TestMeterAnswer(t *testing.T) {
	t.Parallel()
	stream := []string{
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-x\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"hi\"}}\n\n",
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":7}}\n\n",
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	}
	u, model, done, err := MeterAnswer("POST", "/v1/messages", "text/event-stream", &pieceReader{pieces: stream})
	if err != nil || u != usageOfNumbers(10, 7, 0) || model != "claude-x" || !done {
		t.Errorf("stream: %+v %q %v %v", u, model, done, err)
	}
	u, _, done, _ = MeterAnswer("POST", "/v1/chat/completions", "application/json", &pieceReader{pieces: []string{`{"model":"m","choi`, `ces":[]}`}})
	if !u.IsUnknown() || !done {
		t.Errorf("an answer without usage: %+v %v", u, done)
	}
	if u, _, _, _ := MeterAnswer("GET", "/v1/models", "application/json", &pieceReader{}); u != (agent.Usage{}) {
		t.Errorf("no model call: %+v", u)
	}
}
