package config

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/provider"
)

// TestSchemaGenerated fails while the committed schema.json is not what
// go generate writes from schema.in.json and the registries.
func TestSchemaGenerated(t *testing.T) {
	t.Parallel()
	source, err := os.ReadFile("schema.in.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := GenerateSchema(source)
	if err != nil {
		t.Fatalf("GenerateSchema: %v", err)
	}
	if !bytes.Equal(want, Schema) {
		t.Errorf("schema.json is not what go generate ./internal/config writes from schema.in.json and the registries; edit schema.in.json (or the registry) and run it (-generated +committed):\n%s",
			cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(Schema), "\n")))
	}
}

// TestTreeRoundTrip: the ordered tree writes back what it read, order,
// numbers and <, >, & included.
func TestTreeRoundTrip(t *testing.T) {
	t.Parallel()
	in := "{\n  \"b\": 1,\n  \"a\": [\n    0.50,\n    \"<x> & y\",\n    true,\n    null,\n    {},\n    []\n  ]\n}\n"
	tree, err := decodeTree([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := encodeTree(tree)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, string(out)); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
	for _, bad := range []string{`{"a": 1, "a": 2}`, `{"a": 1} {}`, `{"a": `} {
		if _, err := decodeTree([]byte(bad)); err == nil {
			t.Errorf("decodeTree(%s) succeeded", bad)
		}
	}
}

// TestGenerateSchemaRefuses: a source that misuses a placeholder, or
// leaves a registry's part out, is an error that says what to write.
func TestGenerateSchemaRefuses(t *testing.T) {
	t.Parallel()
	source, err := os.ReadFile("schema.in.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, old, new, want string
	}{
		{"unknown placeholder", `"{{providers}}"`, `"{{provider}}"`, "unknown placeholder {{provider}}"},
		{"a placeholder left out", `"{{checks.rules}}"`, `{"if": true, "then": true}`, "never uses {{checks.rules}}"},
		{"rules inside a sentence", `"Who runs the agent: {{providers.about}}.`, `"Who runs the agent: {{providers.rules}}.`, "is not text"},
		{"a kind key undescribed", `"description": "{{check.key}}",
          "type": "string",
          "minLength": 1
        },
        "schema"`, `"description": "the pattern",
          "type": "string",
          "minLength": 1
        },
        "schema"`, "the constraint key pattern"},
		{"check.key outside constraints", `"description": "Bounds the whole agent`, `"description": "{{check.key}} Bounds the whole agent`, "belongs in the description of a key of $defs/constraint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if !bytes.Contains(source, []byte(tt.old)) {
				t.Fatalf("schema.in.json no longer holds %s; update the test", tt.old)
			}
			_, err := GenerateSchema(bytes.Replace(source, []byte(tt.old), []byte(tt.new), 1))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("GenerateSchema = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestRulesOfANewKind: a kind added to the registry gets its rule, and its
// new key is forbidden to every other kind, with no hand-written JSON.
func TestRulesOfANewKind(t *testing.T) {
	t.Parallel()
	kinds := append(slices.Clone(checkKinds), checkKind{name: "line-count", doc: "the output has at most max lines",
		keys: []kindKey{{name: "max", doc: "the most lines", def: defCount}}})
	rules := rulesOfKinds(kinds)
	if len(rules) != len(kinds) {
		t.Fatalf("%d rules for %d kinds", len(rules), len(kinds))
	}
	for i, r := range rules {
		then, _ := r.(object).get("then")
		props, _ := then.(object).get("properties")
		maxRule, ok := props.(object).get("max")
		if kinds[i].name == "line-count" {
			want := object{{"$ref", "#/$defs/count"}}
			if diff := cmp.Diff(want, maxRule, cmp.AllowUnexported(member{})); diff != "" {
				t.Errorf("line-count's max (-want +got):\n%s", diff)
			}
			required, _ := then.(object).get("required")
			if diff := cmp.Diff([]any{"max"}, required); diff != "" {
				t.Errorf("line-count's required (-want +got):\n%s", diff)
			}
			continue
		}
		if !ok || maxRule != false {
			t.Errorf("check %s: max is not forbidden (%v)", kinds[i].name, maxRule)
		}
	}
}

// TestRulesOfANewProvider: a provider added to the registry joins the rule
// of the providers whose agents use the same keys, and a key only it
// uses is forbidden to every other provider.
func TestRulesOfANewProvider(t *testing.T) {
	t.Parallel()
	openai, _ := provider.Lookup(provider.OpenAI)
	mistral := openai
	mistral.Name = "mistral"
	ollama := openai
	ollama.Name, ollama.NeedsModel = "ollama", true
	ollama.Keys = append(slices.Clone(openai.Keys), "keep-alive")
	ps := append(provider.All(), mistral, ollama)
	var lists [][]string
	for _, p := range ps {
		lists = append(lists, p.Keys)
	}
	rules := rulesOfProviders(ps, distinct(lists...))
	for _, r := range rules {
		cond, _ := r.(object).get("if")
		props, _ := cond.(object).get("properties")
		match, _ := props.(object).get("provider")
		then, _ := r.(object).get("then")
		thenProps, _ := then.(object).get("properties")
		keepAlive, _ := thenProps.(object).get("keep-alive")
		if c, _ := match.(object).get("const"); c == "ollama" {
			if keepAlive != nil {
				t.Errorf("ollama's rule forbids its own key keep-alive")
			}
			continue
		}
		if keepAlive != false {
			t.Errorf("the rule for %v does not forbid keep-alive", match)
		}
		if enum, ok := match.(object).get("enum"); ok && slices.Contains(enum.([]any), any(provider.OpenAI)) && !slices.Contains(enum.([]any), any("mistral")) {
			t.Errorf("mistral, whose agents use openai's keys, is not in openai's rule: %v", enum)
		}
	}
}
