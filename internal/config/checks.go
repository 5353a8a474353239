package config

import (
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
// keeps the two in step, and TestSchemaKindKeys keeps schema.json in step
// with keys.
type checkKind struct {
	// name is the value of a constraint's check: key.
	name string
	// keys are the constraint keys the kind uses besides check,
	// description and hard; config rejects the others. A kind that uses
	// timeout gets the default check timeout, one that uses criterion
	// gets the constraint's name as its criterion (defaults.go).
	keys []string
	// validate reports what is wrong with the kind's keys of the
	// constraint written at key; nil when nothing can be.
	validate func(v *validator, key string, c Constraint)
}

// checkKinds is the registry of check kinds, in the order messages and the
// schema list them. To add a kind, add its entry here, its builder in
// package check and its rules in schema.json (CONTRIBUTING.md, "Add a
// check kind").
var checkKinds = []checkKind{
	{name: CheckContains, keys: []string{"value"}, validate: func(v *validator, key string, c Constraint) {
		if c.Value == "" {
			v.ps.add(key+".value", "contains checks need a value: the text the output must contain")
		}
	}},
	{name: CheckRegex, keys: []string{"pattern"}, validate: validatePattern},
	{name: CheckNotRegex, keys: []string{"pattern"}, validate: validatePattern},
	{name: CheckMaxLength, keys: []string{"value"}, validate: func(v *validator, key string, c Constraint) {
		if n, err := strconv.Atoi(c.Value); err != nil || n <= 0 {
			v.ps.add(key+".value", "max-length checks need a value that is a positive whole number of characters, such as 2000; got %q", c.Value)
		}
	}},
	{name: CheckJSON},
	{name: CheckJSONSchema, keys: []string{"schema"}, validate: func(v *validator, key string, c Constraint) {
		v.schemaPath(key+".schema", c.Schema)
	}},
	{name: CheckCommand, keys: []string{"run", "timeout"}, validate: func(v *validator, key string, c Constraint) {
		v.argv(key+".run", c.Run, "./check.sh")
	}},
	{name: CheckJudge, keys: []string{"agent", "criterion", "timeout"}, validate: func(v *validator, key string, c Constraint) {
		if c.Agent == "" {
			v.ps.add(key+".agent", "judge checks need an agent: the name of the LLM agent that judges")
		} else {
			v.llmRef(key+".agent", c.Agent, "a judge")
		}
	}},
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
	return ok && slices.Contains(k.keys, key)
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
		lists = append(lists, k.keys)
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
		if slices.Contains(k.keys, key) {
			out = append(out, k.name)
		}
	}
	return out
}
