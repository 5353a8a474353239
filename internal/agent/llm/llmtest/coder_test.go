package llmtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	openaioption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

var edit = Edit{Path: "dir/hello.txt", Content: "it's here\n"}

// The official SDK reads the Coder's Messages stream: first the tool calls
// that write the edit (read, then write, at the absolute path of the
// working directory the CLI named), then the answer; each with its use.
func TestCoderMessages(t *testing.T) {
	t.Parallel()
	c := NewCoder(t, WireMessages, "done", edit)
	client := anthropic.NewClient(option.WithBaseURL(c.URL), option.WithAPIKey(c.Key), option.WithMaxRetries(0))
	tools := []anthropic.ToolUnionParam{
		{OfTool: &anthropic.ToolParam{Name: "Read", InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{}}}},
		{OfTool: &anthropic.ToolParam{Name: "Write", InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{}}}},
	}
	params := anthropic.MessageNewParams{
		Model: "claude-x", MaxTokens: 1000, Tools: tools,
		System:   []anthropic.TextBlockParam{{Text: "Primary working directory: /work/repo\n"}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("write it"))},
	}
	first := accumulate(t, client, params)
	if first.StopReason != "tool_use" || len(first.Content) != 2 {
		t.Fatalf("first answer: %+v", first)
	}
	var input map[string]string
	if err := json.Unmarshal(first.Content[1].Input, &input); err != nil || first.Content[1].Name != "Write" ||
		input["file_path"] != "/work/repo/dir/hello.txt" || input["content"] != edit.Content {
		t.Fatalf("the write: %s %s (%v)", first.Content[1].Name, first.Content[1].Input, err)
	}
	if first.Usage.InputTokens+first.Usage.CacheReadInputTokens != 1200 || first.Usage.OutputTokens != 80 {
		t.Errorf("use: %+v", first.Usage)
	}
	params.Messages = append(params.Messages, first.ToParam(),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock(first.Content[1].ID, "ok", false)))
	second := accumulate(t, client, params)
	if second.StopReason != "end_turn" || len(second.Content) != 1 || second.Content[0].Text != "done" {
		t.Fatalf("second answer: %+v", second)
	}
	calls := c.Calls()
	if len(calls) != 2 || !calls[0].Edited || calls[1].Round != 1 || c.Reported() != (CoderUsage{Input: 2400, Output: 160, Cached: 400}) {
		t.Errorf("calls %+v, reported %+v", calls, c.Reported())
	}
}

func accumulate(t *testing.T, client anthropic.Client, params anthropic.MessageNewParams) anthropic.Message {
	t.Helper()
	stream := client.Messages.NewStreaming(t.Context(), params)
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	return msg
}

// The official SDK reads the Coder's Responses stream: a shell command
// that writes the edit, then the answer.
func TestCoderResponses(t *testing.T) {
	t.Parallel()
	c := NewCoder(t, WireResponses, "done", edit)
	client := openai.NewClient(openaioption.WithBaseURL(c.URL), openaioption.WithAPIKey(c.Key), openaioption.WithMaxRetries(0))
	params := responses.ResponseNewParams{
		Model: "gpt-5-codex",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("write it")},
		Tools: []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "exec_command", Parameters: map[string]any{"type": "object"}}}},
	}
	stream := client.Responses.NewStreaming(t.Context(), params)
	var done responses.Response
	for stream.Next() {
		if e := stream.Current(); e.Type == "response.completed" {
			done = e.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(done.Output) != 1 || done.Output[0].Type != "function_call" || done.Output[0].Name != "exec_command" {
		t.Fatalf("output: %+v", done.Output)
	}
	var args map[string]string
	_ = json.Unmarshal([]byte(done.Output[0].Arguments.OfString), &args)
	if want := `mkdir -p 'dir' && printf '%s' 'it'\''s here` + "\n" + `' > 'dir/hello.txt'`; args["cmd"] != want {
		t.Errorf("cmd = %q, want %q", args["cmd"], want)
	}
	if done.Usage.InputTokens != 1200 || done.Usage.InputTokensDetails.CachedTokens != 200 || done.Usage.OutputTokens != 80 {
		t.Errorf("use: %+v", done.Usage)
	}
}

// Gemini CLI's model router asks generateContent for JSON by a schema;
// its turns stream streamGenerateContent as server-sent events.
func TestCoderGemini(t *testing.T) {
	t.Parallel()
	c := NewCoder(t, WireGemini, "done", edit)
	post := func(path string, body string) *http.Response {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, c.URL+path, strings.NewReader(body))
		req.Header.Set("x-goog-api-key", c.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	router := post("/v1beta/models/flash-lite:generateContent",
		`{"contents":[{"role":"user","parts":[{"text":"x"}]}],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT","properties":{"complexity_score":{"type":"INTEGER"}}}}}`)
	var answer struct {
		Candidates []struct {
			Content struct {
				Parts []struct{ Text string } `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if err := json.NewDecoder(router.Body).Decode(&answer); err != nil || answer.Candidates[0].Content.Parts[0].Text != `{"complexity_score":1}` {
		t.Fatalf("router's answer: %+v %v", answer, err)
	}
	tools := `"tools":[{"functionDeclarations":[{"name":"write_file"}]}]`
	turn := post("/v1beta/models/pro:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"write it"}]}],`+tools+`}`)
	var chunks []map[string]any
	sc := bufio.NewScanner(turn.Body)
	for sc.Scan() {
		if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			chunks = append(chunks, m)
		}
	}
	if len(chunks) != 1 || !strings.Contains(mustJSON(chunks[0]), `"functionCall":{"args":{"content":"it's here\n","file_path":"dir/hello.txt"},"name":"write_file"}`) ||
		!strings.Contains(mustJSON(chunks[0]), `"promptTokenCount":1200`) {
		t.Fatalf("chunks: %v", chunks)
	}
	calls := c.Calls()
	if len(calls) != 2 || calls[0].Model != "flash-lite" || calls[1].Stream != true || !calls[1].Edited {
		t.Errorf("calls: %+v", calls)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A wrong key is refused in the provider's shape, and recorded.
func TestCoderRefusesAWrongKey(t *testing.T) {
	t.Parallel()
	c := NewCoder(t, WireMessages, "done")
	client := anthropic.NewClient(option.WithBaseURL(c.URL), option.WithAPIKey("wrong"), option.WithMaxRetries(0))
	_, err := client.Messages.New(t.Context(), anthropic.MessageNewParams{Model: "m", MaxTokens: 1,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("x"))}})
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized {
		t.Fatalf("err = %v, want a 401", err)
	}
	if calls := c.Calls(); len(calls) != 1 || calls[0].Status != 401 || calls[0].Usage != (CoderUsage{}) {
		t.Errorf("calls: %+v", calls)
	}
}
