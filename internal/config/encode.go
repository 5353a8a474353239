package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/goccy/go-yaml"
)

// YAML writes c as a config file: every setting with its default filled
// in, agents and constraints in the file's order, the other maps' keys
// sorted. Parse reads it back to c (TestYAMLRoundTrip), so what `optr
// config check` and `optr config default` print can be saved as
// .github/optr.yml and means the same.
//
// It is the config's JSON form (the one a matrix plan carries, which
// TestResolvedRoundTrip holds to the schema and to Parse) in YAML's block
// style, with the orders JSON's objects lose put back.
func (c *Config) YAML() ([]byte, error) {
	data, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode the config: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := ordered(dec)
	if err != nil {
		return nil, fmt.Errorf("encode the config: %w", err)
	}
	top, _ := v.(yaml.MapSlice)
	for i, item := range top {
		switch item.Key {
		case "agents":
			top[i].Value = inOrder(item.Value, c.AgentNames)
		case "constraints":
			top[i].Value = inOrder(item.Value, c.ConstraintNames)
		}
	}
	out, err := yaml.MarshalWithOptions(top, yaml.Indent(2), yaml.IndentSequence(true))
	if err != nil {
		return nil, fmt.Errorf("encode the config: %w", err)
	}
	return out, nil
}

// ordered reads the next JSON value from dec, objects as yaml.MapSlice in
// the order of their members, numbers as int64 or float64.
func ordered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := yaml.MapSlice{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := ordered(dec)
				if err != nil {
					return nil, err
				}
				m = append(m, yaml.MapItem{Key: k, Value: v})
			}
			_, err := dec.Token() // '}'
			return m, err
		case '[':
			l := []any{}
			for dec.More() {
				v, err := ordered(dec)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := dec.Token() // ']'
			return l, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		if n, err := t.Int64(); err == nil {
			return n, nil
		}
		return t.Float64()
	}
	return tok, nil
}

// inOrder puts a map's members in the order names gives; members names
// does not list keep their place after them.
func inOrder(v any, names []string) any {
	m, ok := v.(yaml.MapSlice)
	if !ok {
		return v
	}
	rank := func(item yaml.MapItem) int {
		if i := slices.Index(names, fmt.Sprint(item.Key)); i >= 0 {
			return i
		}
		return len(names)
	}
	slices.SortStableFunc(m, func(a, b yaml.MapItem) int { return rank(a) - rank(b) })
	return m
}
