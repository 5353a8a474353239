package extract

import "testing"

func TestObject(t *testing.T) {
	t.Parallel()
	type verdict struct {
		Pass   bool   `json:"pass"`
		Reason string `json:"reason"`
	}
	tests := []struct {
		name string
		text string
		want verdict
		ok   bool
	}{
		{"bare", `{"pass":true,"reason":"ok"}`, verdict{true, "ok"}, true},
		{"fenced", "Here you go:\n```json\n{\"pass\":false,\"reason\":\"no\"}\n```\nthanks", verdict{false, "no"}, true},
		{"prose", `I think {"pass":true,"reason":"a } in a string"} is right`, verdict{true, "a } in a string"}, true},
		{"second object decodes", `{"pass":"maybe"} then {"pass":true,"reason":"x"}`, verdict{true, "x"}, true},
		{"none", "no json here", verdict{}, false},
		{"truncated", `{"pass":true,"reason":"cut`, verdict{}, false},
		{"object inside an array", `[{"pass":true}]`, verdict{true, ""}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got verdict
			err := Object(tt.text, &got)
			if (err == nil) != tt.ok {
				t.Fatalf("Object(%q) error = %v, want ok=%v", tt.text, err, tt.ok)
			}
			if tt.ok && got != tt.want {
				t.Errorf("Object(%q) = %+v, want %+v", tt.text, got, tt.want)
			}
		})
	}
}

func FuzzObject(f *testing.F) {
	f.Add(`{"a":1}`)
	f.Add("```json\n{\"a\":\"}\"}\n```")
	f.Add(`{{{"a":`)
	f.Fuzz(func(t *testing.T, text string) {
		var v map[string]any
		_ = Object(text, &v) // must not panic
	})
}
