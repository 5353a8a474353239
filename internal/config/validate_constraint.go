package config

import (
	"path/filepath"
	"strings"
)

func (v *validator) constraints() {
	for _, name := range v.c.ConstraintNames {
		v.constraint("constraints."+name, name, v.c.Constraints[name])
	}
}

// constraint checks one constraint against the registry of check kinds
// (checks.go): the kind exists, no key of another kind is written, and the
// kind's own rule holds.
func (v *validator) constraint(key, name string, c Constraint) {
	v.name(key, "constraint", name)
	if !v.enum(key+".check", "check", c.Check, CheckKinds()) {
		return
	}
	kind, _ := lookupKind(c.Check)
	for _, k := range kindKeys() {
		if v.written(key+"."+k) && !CheckUses(c.Check, k) {
			v.ps.add(key+"."+k, "%s is not used by %s checks; remove it (it belongs to %s checks)", k, c.Check, oneOf(kindsUsing(k)))
		}
	}
	if kind.validate != nil {
		kind.validate(v, key, c)
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
