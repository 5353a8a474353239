package agent

import (
	"encoding/json"
	"testing"
)

// TestUsage: sums keep the known part and count the unknown calls; a use
// of which nothing is known is null in JSON, never zeros, and reads back
// as such; a partly known one is its known part with the count.
func TestUsage(t *testing.T) {
	t.Parallel()
	known := Usage{InputTokens: 100, OutputTokens: 20, CachedTokens: 40}
	sum := known.Add(UnknownUsage).Add(Usage{InputTokens: 1, OutputTokens: 2})
	if sum.Total() != 123 || sum.CachedTokens != 40 || sum.Unknown != 1 || sum.Known() || sum.IsUnknown() {
		t.Errorf("sum = %+v", sum)
	}
	if back := sum.Sub(known); back != UnknownUsage.Add(Usage{InputTokens: 1, OutputTokens: 2}) {
		t.Errorf("Sub = %+v", back)
	}
	for _, tc := range []struct {
		u    Usage
		json string
	}{
		{Usage{}, `{"input_tokens":0,"output_tokens":0}`},
		{known, `{"input_tokens":100,"output_tokens":20,"cached_tokens":40}`},
		{UnknownUsage.Add(UnknownUsage), `null`},
		{sum, `{"input_tokens":101,"output_tokens":22,"cached_tokens":40,"unknown":1}`},
	} {
		b, err := json.Marshal(tc.u)
		if err != nil || string(b) != tc.json {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tc.u, b, err, tc.json)
		}
		var back struct{ U Usage }
		if err := json.Unmarshal([]byte(`{"U":`+string(b)+`}`), &back); err != nil {
			t.Fatal(err)
		}
		want := tc.u
		if want.IsUnknown() {
			want = UnknownUsage // null is one unknown call
		}
		if back.U != want {
			t.Errorf("Unmarshal(%s) = %+v, want %+v", b, back.U, want)
		}
	}
}
