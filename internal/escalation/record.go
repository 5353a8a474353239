package escalation

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// field binds a member name to the Go value it is read into.
type field interface {
	key() string
	decode(json.RawMessage) error
	encode() (json.RawMessage, error)
}

type fieldOf[T any] struct {
	name string
	p    *T
}

func (f fieldOf[T]) key() string { return f.name }

func (f fieldOf[T]) decode(raw json.RawMessage) error {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	*f.p = v
	return nil
}

func (f fieldOf[T]) encode() (json.RawMessage, error) { return json.Marshal(*f.p) }

func bind[T any](name string, p *T) field { return fieldOf[T]{name, p} }

// record is the part of a blackboard entry optr does not model: its members
// as read, and what its modelled members encoded to when read, so that a
// member nobody changed is written back byte for byte — including one whose
// value had a type optr could not read.
type record struct {
	doc  object
	orig map[string]json.RawMessage // nil for a record optr created
	// raw is set when the value was not an object at all; it is written
	// back as it was unless a field was set.
	raw json.RawMessage
}

// load reads raw into fields and keeps the rest. It returns a problem for
// each member whose value could not be read; those members are kept as read.
func (r *record) load(where string, raw json.RawMessage, fields []field) (problems []string) {
	r.orig = map[string]json.RawMessage{}
	o, err := decodeObject(raw)
	if err != nil {
		r.raw = append(json.RawMessage(nil), raw...)
		r.doc = object{}
		problems = append(problems, fmt.Sprintf("%s is not a JSON object (%v); it is kept as it is", where, err))
	} else {
		r.doc = o
	}
	for _, f := range fields {
		if v, ok := r.doc.vals[f.key()]; ok {
			if err := f.decode(v); err != nil {
				problems = append(problems, fmt.Sprintf("%s.%s has an unexpected type (%v); it is kept as it is", where, f.key(), err))
			}
		}
		enc, _ := f.encode() // values read from JSON always encode
		r.orig[f.key()] = enc
	}
	return problems
}

// store writes fields into the record's members and returns the whole value.
// A record that was not an object is written back as it was until one of
// its fields is set; then it becomes an object holding the fields.
func (r *record) store(fields []field) (json.RawMessage, error) {
	if r.orig == nil {
		r.orig = map[string]json.RawMessage{}
		r.raw = nil
		for _, f := range fields {
			r.orig[f.key()] = nil // a new record writes every field
		}
	}
	for _, f := range fields {
		enc, err := f.encode()
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", f.key(), err)
		}
		if bytes.Equal(enc, r.orig[f.key()]) {
			continue // untouched: keep the member exactly as read, or absent
		}
		r.doc.setRaw(f.key(), enc)
		r.orig[f.key()] = enc
		r.raw = nil
	}
	if r.raw != nil {
		return r.raw, nil
	}
	return json.Marshal(r.doc)
}
