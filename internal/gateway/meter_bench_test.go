package gateway

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkMeterAnthropicStream: metering one streamed answer of 40
// deltas, fed as its events arrive.
func BenchmarkMeterAnthropicStream(b *testing.B) {
	var events []string
	ev := func(name, data string) { events = append(events, fmt.Sprintf("event: %s\ndata: %s\n\n", name, data)) }
	ev("message_start", `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":30,"output_tokens":1}}}`)
	for range 40 {
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The ledger now verifies in a single streaming pass, hashing each line once."}}`)
	}
	ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":600}}`)
	ev("message_stop", `{"type":"message_stop"}`)
	chunks := make([][]byte, len(events))
	for i, e := range events {
		chunks[i] = []byte(e)
	}
	b.SetBytes(int64(len(strings.Join(events, ""))))
	b.ReportAllocs()
	for b.Loop() {
		m := newMeterer(apiMessages, "text/event-stream", false)
		for _, c := range chunks {
			m.write(c)
		}
		if r := m.done(false); !r.complete || r.usage.OutputTokens != 600 {
			b.Fatal(r)
		}
	}
}
