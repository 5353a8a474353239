package gateway_test

import (
	"math"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/gateway"
)

// wantCall is what a test expects of a recorded call.
type wantCall struct {
	API    string
	Model  string
	Status int
	Stream bool
	Usage  agent.Usage
	USD    float64 // its cost; -1 for unknown
}

// checkCalls compares rec's calls with want.
func checkCalls(t *testing.T, rec gateway.Record, want ...wantCall) {
	t.Helper()
	var got []wantCall
	for _, c := range rec.Calls {
		usd := -1.0
		if c.CostUSD != nil {
			usd = math.Round(*c.CostUSD*1e9) / 1e9
		}
		got = append(got, wantCall{API: c.API, Model: c.Model, Status: c.Status, Stream: c.Stream, Usage: c.Usage, USD: usd})
		if c.Start.IsZero() || c.DurationMS < c.LatencyMS {
			t.Errorf("call %s: start %v, latency %d ms, duration %d ms", c.API, c.Start, c.LatencyMS, c.DurationMS)
		}
	}
	for i := range want {
		want[i].USD = math.Round(want[i].USD*1e9) / 1e9
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// usd is the cost of u at in and out dollars per million tokens.
func usd(u agent.Usage, in, out float64) float64 {
	return (float64(u.InputTokens)*in + float64(u.OutputTokens)*out) / 1e6
}

// TestAnthropicSDK: the official Anthropic SDK, pointed at the gateway by
// the variables the agent gets, sends and streams Messages; the gateway
// meters both from the wire format's usage (cached tokens included) and
// charges the run's meter.
func TestAnthropicSDK(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewAnthropic(t)
	u1 := agent.Usage{InputTokens: 1200, OutputTokens: 80}
	u2 := agent.Usage{InputTokens: 900, OutputTokens: 45}
	fake.Script(llmtest.Reply{Text: "hello", Usage: u1}, llmtest.Reply{Text: "streamed answer", Usage: u2})
	r := newRig(t, gateway.Anthropic, fake)
	if r.env["ANTHROPIC_BASE_URL"] != "http://"+r.addr || r.env["ANTHROPIC_API_KEY"] != r.badge.Placeholders()[0] {
		t.Fatalf("the agent's environment = %v", r.env)
	}
	client := anthropic.NewClient(anthropicoption.WithBaseURL(r.env["ANTHROPIC_BASE_URL"]), anthropicoption.WithAPIKey(r.env["ANTHROPIC_API_KEY"]), anthropicoption.WithMaxRetries(0))
	params := anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 100, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}}
	msg, err := client.Messages.New(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Content[0].Text != "hello" || msg.Usage.InputTokens != 1200 {
		t.Errorf("answer %+v", msg)
	}
	stream := client.Messages.NewStreaming(t.Context(), params)
	var acc anthropic.Message
	for stream.Next() {
		if err := acc.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if acc.Content[0].Text != "streamed answer" {
		t.Errorf("streamed answer %+v", acc)
	}
	rec := r.close()
	checkCalls(t, rec,
		wantCall{API: "messages", Model: "claude-sonnet-4-5", Status: 200, Usage: u1, USD: usd(u1, 3, 15)},
		wantCall{API: "messages", Model: "claude-sonnet-4-5", Status: 200, Stream: true, Usage: u2, USD: usd(u2, 3, 15)},
	)
	r.checkUpstream(t)
	if got, want := r.meter.Agent("a").Usage, u1.Add(u2); got != want {
		t.Errorf("the meter charged a with %+v, want %+v", got, want)
	}
	if usdSpent, ok := r.meter.Total().Cost(); !ok || math.Abs(usdSpent-usd(u1.Add(u2), 3, 15)) > 1e-12 || r.meter.Total().Requests != 2 {
		t.Errorf("the meter's total = %+v", r.meter.Total())
	}
	if told := r.told(); told.Bytes == 0 || told.Tokens != 125 {
		t.Errorf("progress was told %+v: every byte and the answers' tokens are signs of life", told)
	}
}

// TestOpenAISDK: the official OpenAI SDK's Chat Completions and Responses,
// streamed and not. A chat stream whose client did not ask for its usage
// is asked for it by the gateway, so it is metered all the same.
func TestOpenAISDK(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewOpenAI(t)
	u := []agent.Usage{{InputTokens: 100, OutputTokens: 10}, {InputTokens: 200, OutputTokens: 20}, {InputTokens: 300, OutputTokens: 30, CachedTokens: 0}, {InputTokens: 400, OutputTokens: 40}}
	for i, text := range []string{"chat", "chat streamed", "responses", "responses streamed"} {
		fake.Script(llmtest.Reply{Text: text, Usage: u[i]})
	}
	r := newRig(t, gateway.OpenAI, fake)
	if r.env["OPENAI_BASE_URL"] != "http://"+r.addr+"/v1" {
		t.Fatalf("OPENAI_BASE_URL = %q", r.env["OPENAI_BASE_URL"])
	}
	client := openai.NewClient(option.WithBaseURL(r.env["OPENAI_BASE_URL"]), option.WithAPIKey(r.env["OPENAI_API_KEY"]), option.WithMaxRetries(0))
	ctx := t.Context()
	chat := openai.ChatCompletionNewParams{Model: "gpt-4.1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}
	cc, err := client.Chat.Completions.New(ctx, chat)
	if err != nil || cc.Choices[0].Message.Content != "chat" {
		t.Fatalf("chat: %v %+v", err, cc)
	}
	cs := client.Chat.Completions.NewStreaming(ctx, chat)
	var text string
	for cs.Next() {
		if ch := cs.Current(); len(ch.Choices) > 0 {
			text += ch.Choices[0].Delta.Content
		}
	}
	if err := cs.Err(); err != nil || text != "chat streamed" {
		t.Fatalf("chat stream: %v %q", err, text)
	}
	resp, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-4.1", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}})
	if err != nil || resp.OutputText() != "responses" {
		t.Fatalf("responses: %v", err)
	}
	rs := client.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: "gpt-4.1", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}})
	text = ""
	for rs.Next() {
		if ev := rs.Current(); ev.Type == "response.output_text.delta" {
			text += ev.Delta
		}
	}
	if err := rs.Err(); err != nil || text != "responses streamed" {
		t.Fatalf("responses stream: %v %q", err, text)
	}
	checkCalls(t, r.close(),
		wantCall{API: "chat-completions", Model: "gpt-4.1", Status: 200, Usage: u[0], USD: usd(u[0], 2, 8)},
		wantCall{API: "chat-completions", Model: "gpt-4.1", Status: 200, Stream: true, Usage: u[1], USD: usd(u[1], 2, 8)},
		wantCall{API: "responses", Model: "gpt-4.1", Status: 200, Usage: u[2], USD: usd(u[2], 2, 8)},
		wantCall{API: "responses", Model: "gpt-4.1", Status: 200, Stream: true, Usage: u[3], USD: usd(u[3], 2, 8)},
	)
	r.checkUpstream(t)
	reqs := fake.Requests()
	if opts, _ := reqs[1].Body["stream_options"].(map[string]any); opts["include_usage"] != true {
		t.Errorf("the chat stream went upstream without stream_options.include_usage: %v", reqs[1].Body)
	}
}

// TestAzureSDK: the OpenAI SDK's Azure client, with the deployment's
// path and the Api-Key header, through the gateway to an Azure resource
// over TLS; priced by the model the answer names.
func TestAzureSDK(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewAzure(t)
	u := agent.Usage{InputTokens: 500, OutputTokens: 50, CachedTokens: 0}
	fake.Script(llmtest.Reply{Text: "azure", Usage: u, Model: "gpt-4.1-2025-04-14"}, llmtest.Reply{Text: "azure streamed", Usage: u, Model: "gpt-4.1-2025-04-14"})
	r := newRig(t, gateway.Azure, fake)
	client := openai.NewClient(
		azure.WithEndpoint(r.env["AZURE_OPENAI_ENDPOINT"], "2024-10-21"), azure.WithAPIKey(r.env["AZURE_OPENAI_API_KEY"]),
		azure.WithUnsafeAllowHTTP(), option.WithMaxRetries(0))
	chat := openai.ChatCompletionNewParams{Model: "my-deployment", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}
	cc, err := client.Chat.Completions.New(t.Context(), chat)
	if err != nil || cc.Choices[0].Message.Content != "azure" {
		t.Fatalf("azure chat: %v %+v", err, cc)
	}
	cs := client.Chat.Completions.NewStreaming(t.Context(), chat)
	for cs.Next() {
	}
	if err := cs.Err(); err != nil {
		t.Fatal(err)
	}
	checkCalls(t, r.close(),
		wantCall{API: "chat-completions", Model: "gpt-4.1-2025-04-14", Status: 200, Usage: u, USD: usd(u, 2, 8)},
		wantCall{API: "chat-completions", Model: "gpt-4.1-2025-04-14", Status: 200, Stream: true, Usage: u, USD: usd(u, 2, 8)},
	)
	r.checkUpstream(t)
	if got := fake.Requests()[0].Deployment; got != "my-deployment" {
		t.Errorf("the deployment upstream = %q", got)
	}
}

// TestGeminiSDK: Google's Gen AI SDK, generateContent and
// streamGenerateContent (server-sent events) through the gateway;
// thinking tokens count as output.
func TestGeminiSDK(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewGemini(t)
	u1 := agent.Usage{InputTokens: 700, OutputTokens: 70}
	u2 := agent.Usage{InputTokens: 800, OutputTokens: 90}
	fake.Script(llmtest.Reply{Text: "gemini", Usage: u1}, llmtest.Reply{Text: "gemini streamed", Usage: u2})
	r := newRig(t, gateway.Gemini, fake)
	client, err := genai.NewClient(t.Context(), &genai.ClientConfig{
		APIKey: r.env["GEMINI_API_KEY"], Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: r.env["GOOGLE_GEMINI_BASE_URL"]},
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := client.Models.GenerateContent(t.Context(), "gemini-2.5-flash", genai.Text("hi"), nil)
	if err != nil || res.Text() != "gemini" {
		t.Fatalf("generateContent: %v %+v", err, res)
	}
	var text string
	for chunk, err := range client.Models.GenerateContentStream(t.Context(), "gemini-2.5-flash", genai.Text("hi"), nil) {
		if err != nil {
			t.Fatal(err)
		}
		text += chunk.Text()
	}
	if text != "gemini streamed" {
		t.Errorf("streamed %q", text)
	}
	checkCalls(t, r.close(),
		wantCall{API: "generate-content", Model: "gemini-2.5-flash", Status: 200, Usage: u1, USD: usd(u1, 0.3, 2.5)},
		wantCall{API: "stream-generate-content", Model: "gemini-2.5-flash", Status: 200, Stream: true, Usage: u2, USD: usd(u2, 0.3, 2.5)},
	)
	r.checkUpstream(t)
}
