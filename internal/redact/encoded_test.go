package redact

import (
	"encoding/base64"
	"encoding/hex"
	"io"
	"strings"
	"testing"
)

// A known value is redacted as written, reversed, in hex and in base64 or
// base64url at any offset of a longer encoded text; what is left of the
// encoding carries less than 8 bytes of it.
func TestEncodedValues(t *testing.T) {
	t.Parallel()
	const key = "sk-live-EncodedKEY-0123456789"
	r := New(key)
	for _, prefix := range []string{"", "a", "ab", "abc", `{"token":"`} {
		plain := prefix + key + `"}`
		for name, enc := range map[string]string{
			"base64":     base64.StdEncoding.EncodeToString([]byte(plain)),
			"base64 raw": base64.RawStdEncoding.EncodeToString([]byte(plain)),
			"base64url":  base64.URLEncoding.EncodeToString([]byte(plain)),
			"hex":        hex.EncodeToString([]byte(plain)),
			"HEX":        strings.ToUpper(hex.EncodeToString([]byte(plain))),
			"reversed":   reverse(plain),
		} {
			text := "value: " + enc + " end"
			out := r.String(text)
			if !strings.Contains(out, Placeholder) {
				t.Errorf("%s of %q not redacted: %s", name, plain, out)
			}
			if !r.Holds(text) {
				t.Errorf("Holds misses the %s of %q", name, plain)
			}
		}
	}
	// Ordinary hex and base64 — hashes, other keys — are left alone.
	for _, s := range []string{hex.EncodeToString([]byte("another value, not the key at all")), base64.StdEncoding.EncodeToString([]byte("a different text of some length")), "deadbeefcafe13579bd2468ace"} {
		if r.String(s) != s {
			t.Errorf("%q redacted to %q", s, r.String(s))
		}
	}
}

// Values learnt after a Redactor was handed over are redacted by it, by
// what Merge and Values made of it, and by a stream already under way.
func TestAdd(t *testing.T) {
	t.Parallel()
	run := New("sk-first-value-1234")
	merged := Merge(run, New("other-secret-99999"))
	values := run.Values()
	var out strings.Builder
	w := NewWriter(&out, merged)
	if _, err := io.WriteString(w, strings.Repeat("x", 100<<10)+" first sk-first-value-1234\n"); err != nil {
		t.Fatal(err)
	}
	placeholder := "optr-gateway-openai-" + strings.Repeat("q", 26)
	run.Add(placeholder)
	if _, err := io.WriteString(w, "later "+placeholder+"\n"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, got := range []string{out.String(), merged.String(placeholder), values.String(placeholder), run.String(placeholder)} {
		if strings.Contains(got, placeholder) || strings.Contains(got, "sk-first-value-1234") {
			t.Errorf("a value added later survived: %.200q", got[max(0, len(got)-200):])
		}
	}
	if run.Len() != 2 || merged.Len() != 3 {
		t.Errorf("Len: run %d, merged %d", run.Len(), merged.Len())
	}
}

// HoldsAcross finds a value cut into pieces of any size over lines and
// files, or joined from strings; pieces of ordinary text do not add up.
func TestHoldsAcross(t *testing.T) {
	t.Parallel()
	const key = "ghs_AcrossPiecesKey0123456789"
	r := New(key)
	var fours []string
	for i := 0; i < len(key); i += 4 {
		fours = append(fours, key[i:min(i+4, len(key))])
	}
	for name, pieces := range map[string][]string{
		"lines of 4 bytes": fours,
		"joined":           {`k = "` + key[:5] + `" + "` + key[5:11] + `" +`, `    "` + key[11:] + `"`},
		"array":            {`parts = ["` + key[:3] + `", "` + key[3:9] + `",`, `  "` + key[9:] + `"]`},
		"reversed, cut":    {reverse(key)[:6], reverse(key)[6:]},
	} {
		if !r.HoldsAcross(pieces) {
			t.Errorf("%s: %q not found", name, pieces)
		}
	}
	if r.HoldsAcross([]string{"func main() {", `	fmt.Println("hello")`, "}"}) {
		t.Error("ordinary code holds the key")
	}
	if New().HoldsAcross(fours) {
		t.Error("a Redactor that knows nothing found something")
	}
}
