package config

import (
	"reflect"
	"strings"
)

// field is a struct field as the decoder sees it.
type field struct {
	index  int
	scalar bool
}

// fieldsOf maps t's yaml keys to its fields.
func fieldsOf(t reflect.Type) map[string]field {
	m := map[string]field{}
	for i := range t.NumField() {
		if tag := yamlTag(t.Field(i)); tag != "" {
			m[tag] = field{index: i, scalar: t.Field(i).Tag.Get("config") == "scalar"}
		}
	}
	return m
}

// tagsOf lists t's yaml keys in field order.
func tagsOf(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if tag := yamlTag(t.Field(i)); tag != "" {
			out = append(out, tag)
		}
	}
	return out
}

// yamlTag returns f's yaml key, empty when f is not read from YAML.
func yamlTag(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	return name
}

// joinKey appends name to the dotted key.
func joinKey(key, name string) string {
	if key == "" {
		return name
	}
	return key + "." + name
}
