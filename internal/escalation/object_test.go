package escalation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeObject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    string // re-encoded; "" = error
		wantKey []string
	}{
		{`{"b": 1, "a": [1, 2.50], "c": {"x": null}}`, `{"b":1,"a":[1, 2.50],"c":{"x": null}}`, []string{"b", "a", "c"}},
		{`{"a": 1, "b": 2, "a": 3}`, `{"a":3,"b":2}`, []string{"a", "b"}},
		{`{}`, `{}`, nil},
		{`{"a": 1} {"b": 2}`, "", nil},
		{`{"a": 1`, "", nil},
		{`[1]`, "", nil},
		{`"x"`, "", nil},
	}
	for _, tt := range tests {
		o, err := decodeObject([]byte(tt.in))
		if tt.want == "" {
			if err == nil {
				t.Errorf("decodeObject(%s): no error", tt.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("decodeObject(%s): %v", tt.in, err)
			continue
		}
		got, _ := o.MarshalJSON()
		if string(got) != tt.want {
			t.Errorf("decodeObject(%s) re-encodes as %s, want %s", tt.in, got, tt.want)
		}
		if diff := cmp.Diff(tt.wantKey, o.keys); diff != "" {
			t.Errorf("keys of %s (-want +got):\n%s", tt.in, diff)
		}
	}
}
