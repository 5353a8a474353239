package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Check kinds, the values of a constraint's check: key.
const (
	CheckContains   = "contains"
	CheckRegex      = "regex"
	CheckNotRegex   = "not-regex"
	CheckMaxLength  = "max-length"
	CheckJSON       = "json"
	CheckJSONSchema = "json-schema"
	CheckCommand    = "command"
	CheckJudge      = "judge"
)

// checkKind is one kind of check as the config knows it. Package check
// builds and describes each kind (check/kinds.go); TestKindsAgree there
// keeps the two in step. schema.json's check enum, its description of
// check and of each key below, and its rule per kind are generated from
// this registry (schema_gen.go).
type checkKind struct {
	// name is the value of a constraint's check: key.
	name string
	// doc says what a passing output is, in a phrase that names the keys
	// it reads ("the output contains value"), for the schema.
	doc string
	// keys are the constraint keys the kind uses besides check,
	// description and hard; config rejects the others. A kind that uses
	// timeout gets the default check timeout, one that uses criterion
	// gets the constraint's name as its criterion (defaults.go).
	keys []kindKey
	// validate reports what is wrong with the kind's keys of the
	// constraint written at key; nil when nothing can be.
	validate func(v *validator, key string, c Constraint)
}

// kindKey is a constraint key as one kind of check uses it.
type kindKey struct {
	// name is the key.
	name string
	// doc says what the key holds for this kind; the schema's description
	// of the key joins the docs of every kind that uses it.
	doc string
	// optional is true for a key the kind works without (a default fills
	// it in); the schema requires the others.
	optional bool
	// def names the schema definition ($defs in schema.in.json) the key's
	// value satisfies for this kind, beyond the type every kind shares;
	// "" for none.
	def string
}

// Schema definitions a kind's key may name as its def.
const (
	// defText is text that is not empty, written as a string or a number.
	defText = "text"
	// defCount is a positive whole number, written as a number or a
	// string of digits: what ParseCount reads.
	defCount = "count"
)

// checkKinds is the registry of check kinds, in the order messages and the
// schema list them. To add a kind, add its entry here and its builder in
// package check, then run go generate ./internal/config (CONTRIBUTING.md,
// "A check kind").
var checkKinds = []checkKind{
	{name: CheckContains, doc: "the output contains value",
		keys: []kindKey{{name: "value", doc: "the text the output must contain", def: defText}},
		validate: func(v *validator, key string, c Constraint) {
			if c.Value == "" {
				v.ps.add(key+".value", "contains checks need a value: the text the output must contain")
			}
		}},
	{name: CheckRegex, doc: "the output matches pattern",
		keys:     []kindKey{{name: "pattern", doc: "an RE2 regular expression the output must match"}},
		validate: validatePattern},
	{name: CheckNotRegex, doc: "the output does not match pattern",
		keys:     []kindKey{{name: "pattern", doc: "an RE2 regular expression the output must not match"}},
		validate: validatePattern},
	{name: CheckMaxLength, doc: "the output has at most value characters",
		keys: []kindKey{{name: "value", doc: "the most characters allowed, a positive whole number", def: defCount}},
		validate: func(v *validator, key string, c Constraint) {
			v.count(key+".value", c, "of characters, such as 2000")
		}},
	{name: CheckJSON, doc: "the output is JSON"},
	{name: CheckJSONSchema, doc: "the output is JSON valid against the JSON Schema at schema",
		keys: []kindKey{{name: "schema", doc: "the path of a JSON Schema file, relative to the repository root and inside it"}},
		validate: func(v *validator, key string, c Constraint) {
			v.schemaPath(key+".schema", c.Schema)
		}},
	{name: CheckCommand, doc: "run exits 0 with the output on its stdin",
		keys: []kindKey{
			{name: "run", doc: "the program and its arguments; the output arrives on stdin and exit 0 passes"},
			{name: "timeout", doc: "bounds one check", optional: true},
		},
		validate: func(v *validator, key string, c Constraint) {
			v.argv(key+".run", c.Run, "./check.sh")
		}},
	{name: CheckJudge, doc: "an LLM agent answers pass or fail on criterion",
		keys: []kindKey{
			{name: "agent", doc: "the LLM agent that judges"},
			{name: "criterion", doc: "what the judge checks, in words (default: the constraint's name)", optional: true},
			{name: "timeout", doc: "bounds one check", optional: true},
		},
		validate: func(v *validator, key string, c Constraint) {
			if c.Agent == "" {
				v.ps.add(key+".agent", "judge checks need an agent: the name of the LLM agent that judges")
			} else {
				v.llmRef(key+".agent", c.Agent, "a judge")
			}
		}},
}

// ParseCount reads a count a constraint's value holds (max-length's
// limit): a positive whole number, written as digits, spaces around them
// allowed. Validation and the check that uses the count both read it
// here, so that what one accepts the other builds.
func ParseCount(value string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a positive whole number", value)
	}
	return n, nil
}

// count checks that c's value is a count (ParseCount); what follows
// "a positive whole number" in the message ("of characters, such as 2000").
func (v *validator) count(key string, c Constraint, what string) {
	if _, err := ParseCount(c.Value); err != nil {
		v.ps.add(key, "%s checks need a value that is a positive whole number %s; got %q", c.Check, what, c.Value)
	}
}

// validatePattern checks the pattern of a regex or not-regex check.
func validatePattern(v *validator, key string, c Constraint) {
	if c.Pattern == "" {
		v.ps.add(key+".pattern", "%s checks need a pattern: an RE2 regular expression", c.Check)
	} else if _, err := CompilePattern(c.Pattern); err != nil {
		v.ps.add(key+".pattern", "pattern does not compile as an RE2 regular expression: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
}

// CheckKinds returns the names of the check kinds, in registry order.
func CheckKinds() []string {
	out := make([]string, len(checkKinds))
	for i, k := range checkKinds {
		out[i] = k.name
	}
	return out
}

// CheckUses reports whether constraints of check kind kind use key (value,
// pattern, timeout, …).
func CheckUses(kind, key string) bool {
	k, ok := lookupKind(kind)
	return ok && slices.Contains(k.keyNames(), key)
}

// keyNames lists the keys k uses, in order.
func (k checkKind) keyNames() []string {
	out := make([]string, len(k.keys))
	for i, key := range k.keys {
		out[i] = key.name
	}
	return out
}

func lookupKind(name string) (checkKind, bool) {
	i := slices.IndexFunc(checkKinds, func(k checkKind) bool { return k.name == name })
	if i < 0 {
		return checkKind{}, false
	}
	return checkKinds[i], true
}

// kindKeys returns the constraint keys that some kind uses, each once, in
// registry order.
func kindKeys() []string {
	var lists [][]string
	for _, k := range checkKinds {
		lists = append(lists, k.keyNames())
	}
	return distinct(lists...)
}

// distinct returns the values of lists, each once, in order.
func distinct(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, v := range l {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// kindsUsing lists the check kinds that use key.
func kindsUsing(key string) []string {
	var out []string
	for _, k := range checkKinds {
		if slices.Contains(k.keyNames(), key) {
			out = append(out, k.name)
		}
	}
	return out
}
