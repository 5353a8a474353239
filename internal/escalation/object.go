package escalation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// object is a JSON object that keeps its members' order and their bytes.
//
// Written by hand because encoding/json forgets both: decoding into a map
// loses the order and decoding into a struct loses unknown members, and the
// blackboard belongs to other tools as much as to optr, so every member
// optr does not touch must come back as it was. No maintained library in
// the module graph does this (gjson/sjson are only indirect dependencies).
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

var errNotObject = errors.New("not a JSON object")

// decodeObject reads b, which must hold exactly one JSON object. A member
// given twice keeps its first position and its last value, as
// encoding/json would read it.
func decodeObject(b []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil {
		return object{}, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return object{}, errNotObject
	}
	o := object{vals: map[string]json.RawMessage{}}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return object{}, err
		}
		key, ok := t.(string)
		if !ok {
			return object{}, fmt.Errorf("object key is %v, not a string", t)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return object{}, fmt.Errorf("member %q: %w", key, err)
		}
		if _, dup := o.vals[key]; !dup {
			o.keys = append(o.keys, key)
		}
		o.vals[key] = raw
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return object{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return object{}, errors.New("data after the JSON object")
	}
	return o, nil
}

// setRaw sets member key to raw, appending it when new.
func (o *object) setRaw(key string, raw json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = raw
}

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
