package config

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/provider"
)

// schemaDoc returns schema.json as plain JSON values.
func schemaDoc(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(Schema, &doc); err != nil {
		t.Fatalf("schema.json: %v", err)
	}
	return doc
}

// at follows a JSON pointer (without escapes) from doc.
func at(t *testing.T, doc map[string]any, pointer string) any {
	t.Helper()
	var v any = doc
	for _, part := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("schema.json%s: %q is not inside an object", pointer, part)
		}
		if v, ok = m[part]; !ok {
			t.Fatalf("schema.json%s: no %q", pointer, part)
		}
	}
	return v
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestSchemaEnums checks that the schema's enumerations, patterns and
// defaults are the ones Parse uses.
func TestSchemaEnums(t *testing.T) {
	t.Parallel()
	doc := schemaDoc(t)
	enums := []struct {
		pointer string
		want    []string
	}{
		{"/$defs/agent/properties/provider/enum", provider.Names()},
		{"/$defs/agent/properties/byok/enum", provider.BYOKKinds()},
		{"/$defs/constraint/properties/check/enum", CheckKinds()},
		{"/$defs/pipeline/properties/mode/enum", modes},
		{"/$defs/selection/properties/on-no-admissible/enum", noAdmissibles},
		{"/$defs/selection/properties/prefer/enum", Prefers},
		{"/$defs/checkpoints/properties/recommend/propertyNames/enum", triggers},
	}
	for _, e := range enums {
		if diff := cmp.Diff(e.want, strs(at(t, doc, e.pointer))); diff != "" {
			t.Errorf("schema.json%s differs from Go (-go +schema):\n%s", e.pointer, diff)
		}
	}

	values := []struct {
		pointer string
		want    any
	}{
		{"/$defs/name/pattern", slugRE.String()},
		{"/$defs/name/maxLength", float64(maxNameLen)},
		{"/properties/escalation/properties/mention/items/pattern", mentionRE.String()},
		{"/$defs/agent/properties/api-key-env/pattern", envNameRE.String()},
		{"/$defs/agent/properties/env/propertyNames/pattern", envNameRE.String()},
		{"/$defs/checkpoints/properties/recommend/properties/NO_ADMISSIBLE/maximum", float64(noAdmissibleOptions)},
		{"/$defs/agent/properties/max-tokens/default", float64(defaultMaxTokens)},
		{"/$defs/constraint/properties/hard/default", true},
		{"/$defs/pipeline/properties/mode/default", ModeSelect},
		{"/$defs/pipeline/properties/threshold/default", defaultThreshold},
		{"/$defs/pipeline/properties/max-topics/default", float64(defaultMaxTopics)},
		{"/$defs/pipeline/properties/max-topics/maximum", float64(maxTopicsLimit)},
		{"/$defs/pipeline/properties/candidates/default", float64(defaultCandidates)},
		{"/$defs/pipeline/properties/restarts/default", float64(defaultRestarts)},
		{"/$defs/pipeline/properties/restarts/maximum", float64(maxRestarts)},
		{"/$defs/selection/properties/on-no-admissible/default", defaultOnNoAdmissible},
		{"/$defs/selection/properties/weights/properties/invariants/default", defaultWeights.Invariants},
		{"/$defs/selection/properties/weights/properties/ttv/default", defaultWeights.TTV},
		{"/$defs/selection/properties/weights/properties/exec/default", defaultWeights.Exec},
		{"/$defs/selection/properties/weights/properties/preference/default", defaultWeights.Preference},
		{"/properties/recovery/properties/attempts/default", float64(defaultAttempts)},
		{"/properties/recovery/properties/max-alternatives/default", float64(defaultMaxAlternatives)},
		{"/properties/watcher/properties/max-failures/default", float64(defaultMaxFailures)},
		{"/properties/watcher/properties/max-restarts/default", float64(defaultMaxRestarts)},
		{"/properties/executor/properties/max-parallel/default", float64(defaultMaxParallel)},
		{"/properties/executor/properties/max-output/default", float64(defaultMaxOutput)},
	}
	for _, v := range values {
		if diff := cmp.Diff(v.want, at(t, doc, v.pointer)); diff != "" {
			t.Errorf("schema.json%s differs from Go (-go +schema):\n%s", v.pointer, diff)
		}
	}
	stages := ruleFor(t, doc, "/$defs/pipeline", "mode", ModeStages)
	if got := stages["properties"].(map[string]any)["agents"].(map[string]any)["minItems"]; got != float64(minStages) {
		t.Errorf("schema.json: a stages pipeline's agents minItems = %v, Go wants %d", got, minStages)
	}
	// Durations compare by what they mean, not how they are spelled.
	durations := map[string]Duration{
		"/$defs/agent/properties/timeout/default":            Duration(defaultAgentTimeout),
		"/$defs/constraint/properties/timeout/default":       Duration(defaultCheckTimeout),
		"/properties/recovery/properties/base-delay/default": Duration(defaultBaseDelay),
		"/properties/recovery/properties/max-delay/default":  Duration(defaultMaxDelay),
		"/properties/recovery/properties/max-total/default":  Duration(defaultMaxTotal),
		"/properties/watcher/properties/stuck-after/default": Duration(defaultStuckAfter),
		"/$defs/pipeline/properties/restart-backoff/default": Duration(defaultRestartBackoff),
	}
	for pointer, want := range durations {
		var got Duration
		if err := got.UnmarshalText([]byte(at(t, doc, pointer).(string))); err != nil || got != want {
			t.Errorf("schema.json%s = %v (err %v), Go default %v", pointer, got, err, want)
		}
	}
}

// ruleFor returns the then-branch of the allOf rule whose if names
// key: value, from the definition at pointer.
func ruleFor(t *testing.T, doc map[string]any, pointer, key, value string) map[string]any {
	t.Helper()
	for _, r := range at(t, doc, pointer+"/allOf").([]any) {
		rule := r.(map[string]any)
		cond, _ := rule["if"].(map[string]any)
		props, _ := cond["properties"].(map[string]any)
		k, _ := props[key].(map[string]any)
		if k["const"] == value {
			then, _ := rule["then"].(map[string]any)
			return then
		}
	}
	t.Fatalf("schema.json%s has no rule for %s: %s", pointer, key, value)
	return nil
}

// forbidden lists the keys a then-branch forbids (properties: {key: false}).
func forbidden(then map[string]any) []string {
	var out []string
	props, _ := then["properties"].(map[string]any)
	for k, v := range props {
		if v == false {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// TestSchemaKindKeys checks that the schema forbids on each check kind and
// provider exactly the keys Parse rejects there, as the registries say
// (checks.go, package provider), and requires what Parse requires.
func TestSchemaKindKeys(t *testing.T) {
	t.Parallel()
	doc := schemaDoc(t)
	for _, kind := range CheckKinds() {
		want := slices.DeleteFunc(kindKeys(), func(k string) bool { return CheckUses(kind, k) })
		slices.Sort(want)
		if diff := cmp.Diff(want, forbidden(ruleFor(t, doc, "/$defs/constraint", "check", kind))); diff != "" {
			t.Errorf("check %s: keys forbidden by the schema differ from Go (-go +schema):\n%s", kind, diff)
		}
	}
	for _, p := range provider.All() {
		then := providerRules(t, doc, p.Name)
		want := slices.DeleteFunc(agentKeys(), p.Uses)
		slices.Sort(want)
		if diff := cmp.Diff(want, forbidden(then)); diff != "" {
			t.Errorf("%s agents: keys forbidden by the schema differ from Go (-go +schema):\n%s", p.Name, diff)
		}
		required, _ := then["required"].([]any)
		if got := slices.Contains(required, any("model")); got != p.NeedsModel {
			t.Errorf("%s agents: the schema requires model: %v; the registry's NeedsModel: %v", p.Name, got, p.NeedsModel)
		}
		// A program's run is required unless a preset gives it (a rule of
		// its own, which providerRules leaves out).
		if want := p.Program && !p.Uses("preset"); slices.Contains(required, any("run")) != want {
			t.Errorf("%s agents: the schema requires run: %v; the registry's Program: %v without a preset", p.Name, !want, p.Program)
		}
	}
}

// providerRules merges the then-branches of the agent rules that apply to
// every agent of provider name: those whose if names only the provider
// (const name, or an enum that holds name).
func providerRules(t *testing.T, doc map[string]any, name string) map[string]any {
	t.Helper()
	props := map[string]any{}
	var required []any
	for _, r := range at(t, doc, "/$defs/agent/allOf").([]any) {
		rule := r.(map[string]any)
		cond, _ := rule["if"].(map[string]any)
		if len(cond) != 2 || !slices.Equal(cond["required"].([]any), []any{"provider"}) {
			continue
		}
		ps, _ := cond["properties"].(map[string]any)
		p, _ := ps["provider"].(map[string]any)
		enum, _ := p["enum"].([]any)
		if len(ps) != 1 || (p["const"] != name && !slices.Contains(enum, any(name))) {
			continue
		}
		then, _ := rule["then"].(map[string]any)
		tp, _ := then["properties"].(map[string]any)
		for k, v := range tp {
			props[k] = v
		}
		req, _ := then["required"].([]any)
		required = append(required, req...)
	}
	if len(props) == 0 && len(required) == 0 {
		t.Fatalf("schema.json has no rule for provider %s", name)
	}
	return map[string]any{"properties": props, "required": required}
}

// TestSchemaNamesKeyVariables: the schema's descriptions of api-key-env and
// base-url name every variable a key or an endpoint comes from by default,
// as the registry of providers says.
func TestSchemaNamesKeyVariables(t *testing.T) {
	t.Parallel()
	doc := schemaDoc(t)
	keyDoc := at(t, doc, "/$defs/agent/properties/api-key-env/description").(string)
	urlDoc := at(t, doc, "/$defs/agent/properties/base-url/description").(string)
	for _, p := range provider.All() {
		for _, k := range p.KeyEnv {
			if !strings.Contains(keyDoc, k) {
				t.Errorf("the description of api-key-env does not name %s (%s's key):\n%s", k, p.Name, keyDoc)
			}
		}
		if p.BaseURLEnv != "" && !strings.Contains(urlDoc, p.BaseURLEnv) {
			t.Errorf("the description of base-url does not name %s (%s's endpoint):\n%s", p.BaseURLEnv, p.Name, urlDoc)
		}
	}
}

// TestSchemaKeys walks the Config types beside the schema: every yaml key
// must be a described schema property, every schema property a yaml key,
// and every object closed with additionalProperties: false.
func TestSchemaKeys(t *testing.T) {
	t.Parallel()
	doc := schemaDoc(t)
	var walk func(path string, typ reflect.Type, node map[string]any)
	walk = func(path string, typ reflect.Type, node map[string]any) {
		node = deref(t, doc, node)
		if _, ok := node["description"]; !ok {
			t.Errorf("schema for %s has no description", path)
		}
		switch typ.Kind() {
		case reflect.Struct:
			if typ == durationType {
				return
			}
			if node["additionalProperties"] != false {
				t.Errorf("schema for %s does not set additionalProperties: false", path)
			}
			props, _ := node["properties"].(map[string]any)
			var schemaKeys []string
			for k := range props {
				schemaKeys = append(schemaKeys, k)
			}
			slices.Sort(schemaKeys)
			goKeys := slices.Sorted(slices.Values(tagsOf(typ)))
			if diff := cmp.Diff(goKeys, schemaKeys); diff != "" {
				t.Errorf("keys of %s differ (-go +schema):\n%s", path, diff)
			}
			for _, name := range tagsOf(typ) {
				f := typ.Field(fieldsOf(typ)[name].index)
				prop, _ := props[name].(map[string]any)
				if prop == nil {
					continue
				}
				walk(joinKey(path, name), f.Type, prop)
			}
		case reflect.Map:
			if elem := typ.Elem(); elem.Kind() == reflect.Struct {
				ap, ok := node["additionalProperties"].(map[string]any)
				if !ok {
					t.Errorf("schema for %s does not describe its entries in additionalProperties", path)
					return
				}
				walk(path+".*", elem, ap)
			}
		}
	}
	walk("(top level)", reflect.TypeFor[Config](), doc)
}

// deref follows a local $ref, keeping the referring node's description.
func deref(t *testing.T, doc, node map[string]any) map[string]any {
	t.Helper()
	ref, ok := node["$ref"].(string)
	if !ok {
		return node
	}
	target := at(t, doc, strings.TrimPrefix(ref, "#")).(map[string]any)
	if d, ok := node["description"]; ok {
		merged := map[string]any{}
		for k, v := range target {
			merged[k] = v
		}
		merged["description"] = d
		return merged
	}
	return target
}
