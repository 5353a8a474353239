package config

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// kindKeys lists, for each check kind, the kind-specific keys it uses.
// check, description and hard belong to every kind.
var kindKeys = map[string][]string{
	CheckContains:   {"value"},
	CheckRegex:      {"pattern"},
	CheckNotRegex:   {"pattern"},
	CheckMaxLength:  {"value"},
	CheckJSON:       nil,
	CheckJSONSchema: {"schema"},
	CheckCommand:    {"run", "timeout"},
	CheckJudge:      {"agent", "criterion", "timeout"},
}

// kindSpecific are the constraint keys that only some kinds use.
var kindSpecific = []string{"value", "pattern", "schema", "run", "agent", "criterion", "timeout"}

func (v *validator) constraints() {
	for _, name := range v.c.ConstraintNames {
		v.constraint("constraints."+name, name, v.c.Constraints[name])
	}
}

func (v *validator) constraint(key, name string, c Constraint) {
	v.name(key, "constraint", name)
	if !v.enum(key+".check", "check", c.Check, checkKinds) {
		return
	}
	for _, k := range kindSpecific {
		if v.written(key+"."+k) && !slices.Contains(kindKeys[c.Check], k) {
			v.ps.add(key+"."+k, "%s is not used by %s checks; remove it (it belongs to %s checks)", k, c.Check, oneOf(kindsUsing(k)))
		}
	}
	switch c.Check {
	case CheckContains:
		if c.Value == "" {
			v.ps.add(key+".value", "contains checks need a value: the text the output must contain")
		}
	case CheckMaxLength:
		if n, err := strconv.Atoi(c.Value); err != nil || n <= 0 {
			v.ps.add(key+".value", "max-length checks need a value that is a positive whole number of characters, such as 2000; got %q", c.Value)
		}
	case CheckRegex, CheckNotRegex:
		if c.Pattern == "" {
			v.ps.add(key+".pattern", "%s checks need a pattern: an RE2 regular expression", c.Check)
		} else if _, err := regexp.Compile(c.Pattern); err != nil {
			v.ps.add(key+".pattern", "pattern does not compile as an RE2 regular expression: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
	case CheckJSONSchema:
		v.schemaPath(key+".schema", c.Schema)
	case CheckCommand:
		v.argv(key+".run", c.Run, "./check.sh")
	case CheckJudge:
		if c.Agent == "" {
			v.ps.add(key+".agent", "judge checks need an agent: the name of the LLM agent that judges")
		} else {
			v.llmRef(key+".agent", c.Agent, "a judge")
		}
	}
}

// schemaPath checks a json-schema path: relative to the workspace and
// inside it, because checks run on untrusted output in CI.
func (v *validator) schemaPath(key, p string) {
	switch {
	case p == "":
		v.ps.add(key, "json-schema checks need a schema: the path of a JSON Schema file, relative to the repository root")
	case !filepath.IsLocal(p) || strings.HasPrefix(p, "/") || strings.Contains(p, `\`):
		v.ps.add(key, "%q must be a path inside the repository, relative to its root, with '/' separators and no \"..\" that leaves it", p)
	}
}

// kindsUsing lists the check kinds that use key.
func kindsUsing(key string) []string {
	var out []string
	for _, k := range checkKinds {
		if slices.Contains(kindKeys[k], key) {
			out = append(out, k)
		}
	}
	return out
}
