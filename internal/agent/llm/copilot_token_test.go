package llm_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
)

// copilotAPI is a stand-in for GitHub's Copilot API (api.githubcopilot.com)
// that answers every request with one HTTP error, except the model list
// when models is set, recording what reached it.
type copilotAPI struct {
	srv    *httptest.Server
	status int
	body   string
	models string
	mu     sync.Mutex
	seen   []string
}

// oneModel is a model list of the Copilot API with one chat model.
const oneModel = `{"object": "list", "data": [{"id": "gpt-4.1", "name": "GPT-4.1", "object": "model", "vendor": "Azure OpenAI",
 "version": "gpt-4.1-2025-04-14", "preview": false, "model_picker_enabled": true, "is_chat_default": true, "policy": {"state": "enabled"},
 "capabilities": {"family": "gpt-4.1", "type": "chat", "object": "model_capabilities", "tokenizer": "o200k_base",
  "limits": {"max_context_window_tokens": 128000, "max_output_tokens": 16384, "max_prompt_tokens": 128000},
  "supports": {"streaming": true, "tool_calls": true, "structured_outputs": true}},
 "supported_endpoints": ["/chat/completions"]}]}`

func newCopilotAPI(t *testing.T, status int, body, models string) *copilotAPI {
	f := &copilotAPI{status: status, body: body, models: models}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.seen = append(f.seen, fmt.Sprintf("%s %s%s %s", r.Method, r.Header.Get("X-Copilot-Host"), r.URL.Path, r.Header.Get("Authorization")))
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet && r.URL.Path == "/models" && f.models != "" {
			fmt.Fprint(w, f.models)
			return
		}
		w.WriteHeader(f.status)
		fmt.Fprintf(w, `{"error": {"message": %q}}`, f.body)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *copilotAPI) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

// RoundTrip sends a request meant for GitHub's Copilot API to the fake;
// it is the transport of optr's HTTP client, which the Copilot CLI's
// model requests go through.
func (f *copilotAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	u, _ := url.Parse(f.srv.URL)
	r = r.Clone(r.Context())
	r.Header.Set("X-Copilot-Host", r.URL.Host)
	r.URL.Scheme, r.URL.Host = u.Scheme, u.Host
	return http.DefaultTransport.RoundTrip(r)
}

// TestCopilotTokenPathRealCLI drives the real Copilot CLI on the GitHub
// token path (Copilot's own models) up to its boundary, GitHub's Copilot
// API, which answers with an error: 401 and 403 are fatal and unusable,
// saying what to grant; 410 is fatal with the body's message; 500 is
// transient. Each is one request: optr retries, not the CLI.
func TestCopilotTokenPathRealCLI(t *testing.T) {
	t.Parallel()
	cli, home := llmtest.CopilotCLI(t)
	tests := []struct {
		status  int
		body    string
		want    classified
		mention []string
	}{
		{401, "Bad credentials", classified{agent.Fatal, agent.ReasonUnusable, 401, 0}, []string{"copilot-requests: write", "Bad credentials", "GITHUB_TOKEN"}},
		{403, "Copilot is not enabled for this organization", classified{agent.Fatal, agent.ReasonUnusable, 403, 0},
			[]string{"copilot-requests: write", "Allow use of Copilot CLI billed to the organization", "Copilot is not enabled for this organization"}},
		{410, "This endpoint was retired.", classified{agent.Fatal, "gone", 410, 0}, []string{"This endpoint was retired."}},
		{500, "upstream failed", classified{agent.Transient, "server_error", 500, 0}, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			t.Parallel()
			api := newCopilotAPI(t, tt.status, tt.body, "")
			const token = "ghs_workflowtoken0123456789"
			env := map[string]string{"OPTR_COPILOT_CLI": cli, "HOME": home, "PATH": "/usr/bin:/bin", "TMPDIR": t.TempDir(), "GITHUB_TOKEN": token}
			a, err := llm.New("copilot", config.Agent{Provider: config.ProviderCopilot},
				llm.Options{Getenv: func(k string) string { return env[k] }, HTTPClient: &http.Client{Transport: api}})
			if err != nil {
				t.Fatalf("llm.New: %v", err)
			}
			_, err = a.Run(t.Context(), agent.Request{Intent: "Write release notes."})
			reqs := api.requests()
			if len(reqs) != 1 {
				t.Fatalf("the Copilot API got %d requests, want 1: %q (err %v)", len(reqs), reqs, err)
			}
			if !strings.HasPrefix(reqs[0], "GET api.githubcopilot.com/") || !strings.HasSuffix(reqs[0], "Bearer "+token) {
				t.Errorf("request %q: want the Copilot API with the workflow's token", reqs[0])
			}
			e := agentError(t, err)
			if diff := cmp.Diff(tt.want, classified{e.Class, e.Reason, e.Status, e.RetryAfter}); diff != "" {
				t.Errorf("classification of %v (-want +got):\n%s", err, diff)
			}
			for _, m := range tt.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
			noKey(t, err, token)
		})
	}
}

// TestCopilotRoutingFailureIsNotRefusal: without a configured model the CLI
// asks the Copilot API to route (POST /auto, then /models/session) and
// picks a model itself when that fails. A 403 there is not Copilot refusing
// the token: the attempt goes on to the CLI's fallback and is not reported
// as unusable.
func TestCopilotRoutingFailureIsNotRefusal(t *testing.T) {
	t.Parallel()
	cli, home := llmtest.CopilotCLI(t)
	api := newCopilotAPI(t, http.StatusForbidden, "auto mode is not enabled", oneModel)
	env := map[string]string{"OPTR_COPILOT_CLI": cli, "HOME": home, "PATH": "/usr/bin:/bin", "TMPDIR": t.TempDir(), "GITHUB_TOKEN": "ghs_workflowtoken0123456789"}
	a, err := llm.New("copilot", config.Agent{Provider: config.ProviderCopilot},
		llm.Options{Getenv: func(k string) string { return env[k] }, HTTPClient: &http.Client{Transport: api}})
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	_, err = a.Run(t.Context(), agent.Request{Intent: "Write release notes."})
	var paths []string
	for _, r := range api.requests() {
		paths = append(paths, strings.Fields(r)[1])
	}
	if !slices.Contains(paths, "api.githubcopilot.com/models/session") {
		t.Errorf("requests %q: the CLI's fallback after the failed /auto never ran", paths)
	}
	if agent.IsUnusable(err) {
		t.Errorf("a failed routing request was reported as Copilot refusing the token: %v", err)
	}
}
