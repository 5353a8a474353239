package redact

import (
	"slices"
	"testing"

	"github.com/optr-dev/optr/internal/provider"
)

func TestRedactor(t *testing.T) {
	t.Parallel()
	r := New("sk-live-abcdef123456", "", "short", "sk-live-abcdef123456-extended", "ghs_0123456789")
	if r.Len() != 3 {
		t.Fatalf("Len = %d, want 3 (empty, short and duplicate values ignored)", r.Len())
	}
	tests := []struct{ in, want string }{
		{"key=sk-live-abcdef123456 ok", "key=[redacted] ok"},
		{"sk-live-abcdef123456-extended", "[redacted]"},
		{"token ghs_0123456789ghs_0123456789", "token [redacted][redacted]"},
		{"short stays short", "short stays short"},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	var none *Redactor
	if none.String("x") != "x" || New().String("sk-live-abcdef123456") != "sk-live-abcdef123456" {
		t.Fatal("an empty Redactor changed text")
	}
	env := map[string]string{"OPENAI_API_KEY": "sk-from-env-99999", "MY_KEY": "custom-secret-1"}
	fe := FromEnv(func(k string) string { return env[k] }, "MY_KEY")
	if fe.String("sk-from-env-99999 custom-secret-1") != "[redacted] [redacted]" {
		t.Fatal("FromEnv missed a value")
	}
}

func FuzzRedactor(f *testing.F) {
	f.Add("sk-live-abcdef123456", "text sk-live-abcdef123456 text")
	f.Fuzz(func(t *testing.T, secret, text string) {
		// Credentials are made of letters, digits, '-' and '_'; a value made
		// of other characters could be re-formed from the placeholder.
		for _, c := range secret {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return
			}
		}
		r := New(secret)
		out := r.String(text)
		if r.Len() == 1 && containsSecret(out, r.state().values[0]) {
			t.Fatalf("secret survived: %q", out)
		}
	})
}

func containsSecret(s, v string) bool {
	for i := 0; i+len(v) <= len(s); i++ {
		if s[i:i+len(v)] == v {
			return true
		}
	}
	return false
}

// A secret split by a cut leaves a fragment at the edge of what was kept;
// 8 or more bytes of it are the secret, fewer are not worth a placeholder.
// (Any fragment is replaced wherever it is: TestRedactorFragments.)
func TestRedactorCutEdges(t *testing.T) {
	t.Parallel()
	const key = "sk-live-ABCDEFGHIJKLMNOP"
	r := New(key)
	tests := []struct{ name, in, want string }{
		{"tail kept: the key's end starts the text", "GHIJKLMNOP and more", "[redacted] and more"},
		{"head kept: the key's start ends the text", "output: sk-live-ABCD", "output: [redacted]"},
		{"both edges", "IJKLMNOP middle sk-live-AB", "[redacted] middle [redacted]"},
		{"fragment under 8 bytes stays", "KLMNOP tail", "KLMNOP tail"},
		{"a fragment inside the text is replaced too", "x GHIJKLMNOP y", "x [redacted] y"},
		{"whole key", "a " + key + " b", "a [redacted] b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// encoding/json escapes '<', '>' and '&' inside strings: a key holding them
// must still be found in a JSON file.
func TestRedactorJSONForm(t *testing.T) {
	t.Parallel()
	r := New("pa<ss>&word-1234")
	got := r.String(`{"reason":"pa\u003css\u003e\u0026word-1234"}`)
	if want := `{"reason":"[redacted]"}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func FuzzRedactorCut(f *testing.F) {
	f.Add("sk-live-abcdef123456", "text sk-live-abcdef123456 text", 7, 30)
	f.Fuzz(func(t *testing.T, secret, text string, from, to int) {
		for _, c := range secret {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return
			}
		}
		r := New(secret)
		if r.Len() != 1 || from < 0 || to > len(text) || from > to {
			return
		}
		// Whatever window of the text a cut keeps, no 8-byte piece of the
		// secret at its edges survives.
		out := r.String(text[from:to])
		v := r.state().values[0]
		for k := minLen; k < len(v); k++ {
			if len(out) >= k && (out[:k] == v[len(v)-k:] || out[len(out)-k:] == v[:k]) {
				t.Fatalf("a %d-byte fragment of the secret survived at an edge: %q", k, out)
			}
		}
	})
}

// TestNamesHoldEveryProviderKey: the key variables of every provider in the
// registry are secrets, with GitHub's and the runner's tokens.
func TestNamesHoldEveryProviderKey(t *testing.T) {
	t.Parallel()
	names := Names()
	for _, k := range append(provider.KeyVars(), "GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "ACTIONS_RUNTIME_TOKEN", "OPTR_LEDGER_KEY") {
		if !slices.Contains(names, k) {
			t.Errorf("Names lacks %s: %v", k, names)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
		t.Errorf("Names lists a variable twice: %v", names)
	}
}
