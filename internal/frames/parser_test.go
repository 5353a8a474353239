package frames

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParser(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want result
	}{
		{
			name: "plain text passes unchanged",
			in:   "hello\nworld",
			want: result{Out: "hello\nworld"},
		},
		{
			name: "READY frame alone on its line takes the line end",
			in:   "<<<OPTR:READY:{\"stage\":\"plan\",\"ts\":\"2025-01-02T03:04:05Z\"}>>>\nanswer\n",
			want: result{Out: "answer\n", Events: []Event{{
				Type: Ready, Prefix: "OPTR", Stage: "plan", TS: "2025-01-02T03:04:05Z",
				Payload: `{"stage":"plan","ts":"2025-01-02T03:04:05Z"}`,
				Raw:     `<<<OPTR:READY:{"stage":"plan","ts":"2025-01-02T03:04:05Z"}>>>`,
			}}},
		},
		{
			name: "HANDOFF between lines",
			in:   "x\n<<<OPTR:HANDOFF:review>>>\ny",
			want: result{Out: "x\ny", Events: []Event{{
				Type: Handoff, Prefix: "OPTR", Stage: "review", Payload: "review", Raw: "<<<OPTR:HANDOFF:review>>>",
			}}},
		},
		{
			name: "ERROR frame with >>> inside a JSON string",
			in:   `<<<OPTR:ERROR:{"code":"E_AUTH","message":"token >>> expired"}>>>`,
			want: result{Events: []Event{{
				Type: Error, Prefix: "OPTR", Code: "E_AUTH", Message: "token >>> expired",
				Payload: `{"code":"E_AUTH","message":"token >>> expired"}`,
				Raw:     `<<<OPTR:ERROR:{"code":"E_AUTH","message":"token >>> expired"}>>>`,
			}}},
		},
		{
			name: "ERROR frame with an escaped quote and spread over lines",
			in:   "<<<OPTR:ERROR:{\n  \"code\": \"x\",\n  \"message\": \"say \\\">>>\\\"\"\n}>>>\n",
			want: result{Events: []Event{{
				Type: Error, Prefix: "OPTR", Code: "x", Message: `say ">>>"`,
				Payload: "{\n  \"code\": \"x\",\n  \"message\": \"say \\\">>>\\\"\"\n}",
				Raw:     "<<<OPTR:ERROR:{\n  \"code\": \"x\",\n  \"message\": \"say \\\">>>\\\"\"\n}>>>",
			}}},
		},
		{
			name: "RESULT frame sets TTV",
			in:   `done<<<OPTR:RESULT:{"ttv_ms":1500}>>>`,
			want: result{Out: "done", Events: []Event{{
				Type: Result, Prefix: "OPTR", TTV: 1500 * time.Millisecond,
				Payload: `{"ttv_ms":1500}`, Raw: `<<<OPTR:RESULT:{"ttv_ms":1500}>>>`,
			}}},
		},
		{
			name: "RESULT with a fraction of a millisecond",
			in:   `<<<OPTR:RESULT:{"ttv_ms":2.5,"extra":true}>>>`,
			want: result{Events: []Event{{
				Type: Result, Prefix: "OPTR", TTV: 2500 * time.Microsecond,
				Payload: `{"ttv_ms":2.5,"extra":true}`, Raw: `<<<OPTR:RESULT:{"ttv_ms":2.5,"extra":true}>>>`,
			}}},
		},
		{
			name: "ODEI prefix",
			in:   "<<<ODEI:READY:{\"stage\":\"s\"}>>>\n<<<ODEI:HANDOFF:t>>>\n",
			want: result{Events: []Event{
				{Type: Ready, Prefix: "ODEI", Stage: "s", Payload: `{"stage":"s"}`, Raw: `<<<ODEI:READY:{"stage":"s"}>>>`},
				{Type: Handoff, Prefix: "ODEI", Stage: "t", Payload: "t", Raw: "<<<ODEI:HANDOFF:t>>>"},
			}},
		},
		{
			name: "the seed's plain READY and ERROR payloads",
			in:   "<<<ODEI:READY:discuss>>>\n<<<ODEI:ERROR:cannot reach \"db\" >>>\n<<<ODEI:READY:two words>>>\n",
			want: result{
				Events: []Event{
					{Type: Ready, Prefix: "ODEI", Stage: "discuss", Payload: "discuss", Raw: "<<<ODEI:READY:discuss>>>"},
					{Type: Error, Prefix: "ODEI", Message: `cannot reach "db"`, Payload: `cannot reach "db"`, Raw: `<<<ODEI:ERROR:cannot reach "db" >>>`},
				},
				Malformed: []string{"<<<ODEI:READY:two words>>>"},
			},
		},
		{
			name: "frames adjacent to text without newlines",
			in:   `abc<<<OPTR:HANDOFF:next>>>def<<<ODEI:RESULT:{"ttv_ms":1}>>>ghi`,
			want: result{Out: "abcdefghi", Events: []Event{
				{Type: Handoff, Prefix: "OPTR", Stage: "next", Payload: "next", Raw: "<<<OPTR:HANDOFF:next>>>"},
				{Type: Result, Prefix: "ODEI", TTV: time.Millisecond, Payload: `{"ttv_ms":1}`, Raw: `<<<ODEI:RESULT:{"ttv_ms":1}>>>`},
			}},
		},
		{
			name: "a run of frames alone on a line",
			in:   "a\n<<<OPTR:READY:{}>>><<<OPTR:HANDOFF:b>>>\nc\n",
			want: result{Out: "a\nc\n", Events: []Event{
				{Type: Ready, Prefix: "OPTR", Payload: "{}", Raw: "<<<OPTR:READY:{}>>>"},
				{Type: Handoff, Prefix: "OPTR", Stage: "b", Payload: "b", Raw: "<<<OPTR:HANDOFF:b>>>"},
			}},
		},
		{
			name: "a frame that begins a line keeps the text after it",
			in:   "a\n<<<OPTR:READY:{}>>>b\n",
			want: result{Out: "a\nb\n", Events: []Event{
				{Type: Ready, Prefix: "OPTR", Payload: "{}", Raw: "<<<OPTR:READY:{}>>>"},
			}},
		},
		{
			name: "look-alikes are ordinary text",
			in:   "a <<< b >>> <<<O <<<OPTX: <<<odei: <<ODEI: <<<OPT\n<<<OPTR",
			want: result{Out: "a <<< b >>> <<<O <<<OPTX: <<<odei: <<ODEI: <<<OPT\n<<<OPTR"},
		},
		{
			name: "an extra < before a frame is text",
			in:   "<<<<OPTR:HANDOFF:a>>>>",
			want: result{Out: "<>", Events: []Event{
				{Type: Handoff, Prefix: "OPTR", Stage: "a", Payload: "a", Raw: "<<<OPTR:HANDOFF:a>>>"},
			}},
		},
		{
			name: "bad JSON payload is dropped",
			in:   `a<<<OPTR:READY:{"stage":}>>>b`,
			want: result{Out: "ab", Malformed: []string{`<<<OPTR:READY:{"stage":}>>>`}},
		},
		{
			name: "JSON payload of the wrong shape is dropped",
			in:   `<<<OPTR:READY:{"stage":5}>>><<<OPTR:RESULT:null>>><<<OPTR:RESULT:{"ttv_ms":"9"}>>><<<OPTR:RESULT:{"ttv_ms":-1}>>><<<OPTR:RESULT:{}>>><<<OPTR:ERROR:{}>>><<<OPTR:RESULT:{"ttv_ms":1} x>>>`,
			want: result{Malformed: []string{
				`<<<OPTR:READY:{"stage":5}>>>`, `<<<OPTR:RESULT:null>>>`, `<<<OPTR:RESULT:{"ttv_ms":"9"}>>>`,
				`<<<OPTR:RESULT:{"ttv_ms":-1}>>>`, `<<<OPTR:RESULT:{}>>>`, `<<<OPTR:ERROR:{}>>>`,
				`<<<OPTR:RESULT:{"ttv_ms":1} x>>>`,
			}},
		},
		{
			name: "unknown frame type is dropped",
			in:   "<<<OPTR:PING:{\"a\":1}>>>\nx",
			want: result{Out: "x", Malformed: []string{`<<<OPTR:PING:{"a":1}>>>`}},
		},
		{
			name: "frame without payload is dropped",
			in:   "<<<OPTR:READY>>>x<<<OPTR:>>>y",
			want: result{Out: "xy", Malformed: []string{"<<<OPTR:READY>>>", "<<<OPTR:>>>"}},
		},
		{
			name: "a start without a frame type drops only the start",
			in:   "see <<<OPTR:ready:{}>>> and <<<ODEI: here, <<<OPTR:READY>x",
			want: result{Out: "see ready:{}>>> and  here, x", Malformed: []string{"<<<OPTR:", "<<<ODEI:", "<<<OPTR:READY>"}},
		},
		{
			name: "HANDOFF not closed on its line",
			in:   "<<<OPTR:HANDOFF:a\nb>>>",
			want: result{Out: "\nb>>>", Malformed: []string{"<<<OPTR:HANDOFF:a"}},
		},
		{
			name: "HANDOFF stage with white space",
			in:   "<<<OPTR:HANDOFF:two words>>><<<OPTR:HANDOFF:>>><<<OPTR:HANDOFF: padded >>>",
			want: result{
				Malformed: []string{"<<<OPTR:HANDOFF:two words>>>", "<<<OPTR:HANDOFF:>>>"},
				Events:    []Event{{Type: Handoff, Prefix: "OPTR", Stage: "padded", Payload: "padded", Raw: "<<<OPTR:HANDOFF: padded >>>"}},
			},
		},
		{
			name: "end of stream inside a frame",
			in:   `a<<<OPTR:RESULT:{"ttv_ms":`,
			want: result{Out: "a", Malformed: []string{`<<<OPTR:RESULT:{"ttv_ms":`}},
		},
		{
			name: "a frame starting inside an unclosed frame",
			in:   `<<<OPTR:ERROR:{"message":"unterminated <<<OPTR:RESULT:{"ttv_ms":5}>>>x`,
			want: result{
				Out:       "x",
				Malformed: []string{`<<<OPTR:ERROR:{"message":"unterminated `},
				Events:    []Event{{Type: Result, Prefix: "OPTR", TTV: 5 * time.Millisecond, Payload: `{"ttv_ms":5}`, Raw: `<<<OPTR:RESULT:{"ttv_ms":5}>>>`}},
			},
		},
		{
			name: "a raw line end inside a JSON string ends the frame at the next >>>",
			in:   "<<<OPTR:ERROR:{\"message\":\"a\nb>>>c\"}>>>",
			want: result{Out: "c\"}>>>", Malformed: []string{"<<<OPTR:ERROR:{\"message\":\"a\nb>>>"}},
		},
		{
			name: "removing a frame never joins a frame start",
			in:   "<<<O<<<OPTR:HANDOFF:a>>>PTR:HANDOFF:b>>>\n",
			want: result{
				Out:       "<<<O\n",
				Events:    []Event{{Type: Handoff, Prefix: "OPTR", Stage: "a", Payload: "a", Raw: "<<<OPTR:HANDOFF:a>>>"}},
				Malformed: []string{"<<<OPTR:HANDOFF:b>>>"},
			},
		},
		{
			name: "line signals stay in the output and are reported",
			in:   "REPORT_CREATED: reports/001_x.md\nTASK_ERROR: timeout - took too long\nERROR_CONTEXT: {\"step\":2}\n",
			want: result{
				Out: "REPORT_CREATED: reports/001_x.md\nTASK_ERROR: timeout - took too long\nERROR_CONTEXT: {\"step\":2}\n",
				Events: []Event{
					{Type: ReportCreated, Path: "reports/001_x.md", Payload: "reports/001_x.md", Raw: "REPORT_CREATED: reports/001_x.md"},
					{Type: TaskError, Code: "timeout", Message: "took too long", Payload: "timeout - took too long", Raw: "TASK_ERROR: timeout - took too long"},
					{Type: ErrorContext, Payload: `{"step":2}`, Raw: `ERROR_CONTEXT: {"step":2}`},
				},
			},
		},
		{
			name: "line signal at the end of the stream and with CRLF",
			in:   "TASK_ERROR: a - b\r\nTASK_ERROR: crash",
			want: result{
				Out: "TASK_ERROR: a - b\r\nTASK_ERROR: crash",
				Events: []Event{
					{Type: TaskError, Code: "a", Message: "b", Payload: "a - b", Raw: "TASK_ERROR: a - b"},
					{Type: TaskError, Message: "crash", Payload: "crash", Raw: "TASK_ERROR: crash"},
				},
			},
		},
		{
			name: "line signals only at the start of a line",
			in:   " REPORT_CREATED: x\nsee REPORT_CREATED: y\nREPORT_CREATEDx: z\nTASK_\n",
			want: result{Out: " REPORT_CREATED: x\nsee REPORT_CREATED: y\nREPORT_CREATEDx: z\nTASK_\n"},
		},
		{
			name: "malformed line signals stay in the output and are not reported",
			in:   "ERROR_CONTEXT: {bad\nREPORT_CREATED:\nTASK_ERROR:  \n",
			want: result{
				Out:       "ERROR_CONTEXT: {bad\nREPORT_CREATED:\nTASK_ERROR:  \n",
				Malformed: []string{"ERROR_CONTEXT: {bad", "REPORT_CREATED:", "TASK_ERROR:  "},
			},
		},
		{
			name: "a line signal is read after frames are removed",
			in:   "REPORT_<<<OPTR:READY:{}>>>CREATED: a.md\n",
			want: result{
				Out: "REPORT_CREATED: a.md\n",
				Events: []Event{
					{Type: Ready, Prefix: "OPTR", Payload: "{}", Raw: "<<<OPTR:READY:{}>>>"},
					{Type: ReportCreated, Path: "a.md", Payload: "a.md", Raw: "REPORT_CREATED: a.md"},
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, f := range feeds(tt.in) {
				got := parse(t, Options{}, f.chunks...)
				if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("%s: mismatch (-want +got):\n%s", f.name, diff)
				}
			}
		})
	}
}
