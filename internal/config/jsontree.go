package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// object is a JSON object that keeps its members in order, so that the
// generated schema.json reads in the order its source was written (the
// standard library's maps would sort the keys). encoding/json has no
// ordered object; this small tree is all the generator needs.
type object []member

// member is one name and value of an object.
type member struct {
	name  string
	value any // nil, bool, json.Number, string, []any or object
}

// get returns the value of the member called name.
func (o object) get(name string) (any, bool) {
	for _, m := range o {
		if m.name == name {
			return m.value, true
		}
	}
	return nil, false
}

// decodeTree reads one JSON document, keeping objects' order and numbers
// as written.
func decodeTree(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("offset %d: data after the document", d.InputOffset())
	}
	return v, nil
}

func decodeValue(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		var o object
		for d.More() {
			name, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			if _, dup := o.get(name.(string)); dup {
				return nil, fmt.Errorf("offset %d: member %q written twice", d.InputOffset(), name)
			}
			o = append(o, member{name.(string), v})
		}
		_, err := d.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for d.More() {
			v, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := d.Token()
		return a, err
	}
	return tok, nil
}

// encodeTree writes v indented by two spaces, with a final newline, and
// without escaping <, > and & (the schema's prose holds them).
func encodeTree(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeValue(&b, v, "\n"); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

func writeValue(b *bytes.Buffer, v any, nl string) error {
	switch v := v.(type) {
	case object:
		return writeList(b, "{}", len(v), nl, func(i int) error {
			if err := writeScalar(b, v[i].name); err != nil {
				return err
			}
			b.WriteString(": ")
			return writeValue(b, v[i].value, nl+"  ")
		})
	case []any:
		return writeList(b, "[]", len(v), nl, func(i int) error { return writeValue(b, v[i], nl+"  ") })
	}
	return writeScalar(b, v)
}

// writeList writes n items between the brackets, one a line; item writes
// the i-th.
func writeList(b *bytes.Buffer, brackets string, n int, nl string, item func(i int) error) error {
	b.WriteByte(brackets[0])
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(nl + "  ")
		if err := item(i); err != nil {
			return err
		}
	}
	if n > 0 {
		b.WriteString(nl)
	}
	b.WriteByte(brackets[1])
	return nil
}

func writeScalar(b *bytes.Buffer, v any) error {
	var s bytes.Buffer
	e := json.NewEncoder(&s)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return err
	}
	b.Write(bytes.TrimSuffix(s.Bytes(), []byte("\n")))
	return nil
}
