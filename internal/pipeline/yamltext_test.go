package pipeline

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/optr-dev/optr/internal/datalake"
)

// TestResolvedWorkflowKeepsTheIntent checks issue 27 item 11:
// workflow-optr.yaml was invalid YAML for an intent with NUL, ESC or
// invalid UTF-8, and the stored intent no longer hashed to its
// intent_sha256. Every intent reads back byte for byte and hashes to the
// recorded sum, and the file holds no raw control character.
func TestResolvedWorkflowKeepsTheIntent(t *testing.T) {
	t.Parallel()
	intents := map[string]string{
		"multi-line":      "Explain ledgers.\n\n### Constraints\n- short\n",
		"NUL":             "before\x00after",
		"ESC":             "\x1b[31mred\x1b[0m and \x1b]8;;http://x\x07link",
		"invalid UTF-8":   "caf\xe9 \xff\xfe",
		"CRLF":            "line one\r\nline two\r\n",
		"trailing spaces": "keep these   \nand these\t\n",
		"BOM and NEL":     "\ufeffstart \u0085 \u2028 end",
		"C1 control":      "a\u009bb",
		"looks like YAML": "- [a, b]\nkey: value\n--- \n...\n",
	}
	for name, intent := range intents {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec := demoSpec(t, "optr.yml", "", "intent-1")
			spec.Intent, spec.Agents = intent, []string{"good"}
			rep, err := (&Driver{Deps: demoDeps()}).Run(t.Context(), spec)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(rep.Path(datalake.FileWorkflow))
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				IntentSHA256 string `yaml:"intent_sha256"`
				Intent       string `yaml:"intent"`
				IntentBase64 string `yaml:"intent_base64"`
			}
			if err := yaml.Unmarshal(data, &doc); err != nil {
				t.Fatalf("workflow-optr.yaml does not parse: %v\n%q", err, data)
			}
			got := doc.Intent
			if doc.IntentBase64 != "" {
				b, err := base64.StdEncoding.DecodeString(doc.IntentBase64)
				if err != nil {
					t.Fatal(err)
				}
				got = string(b)
			}
			if got != intent {
				t.Errorf("intent read back %q, want %q\n%s", got, intent, data)
			}
			if sum := sha256.Sum256([]byte(got)); hex.EncodeToString(sum[:]) != doc.IntentSHA256 {
				t.Errorf("the stored intent does not hash to intent_sha256 %s", doc.IntentSHA256)
			}
			if strings.ContainsAny(string(data), "\x00\x1b\r\u009b") {
				t.Errorf("the file holds a raw control character: %q", data)
			}
		})
	}
}
