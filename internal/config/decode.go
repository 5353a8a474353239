package config

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// decode parses data and decodes it into a Config, reporting every problem
// to ps. It returns nil when the file cannot be read as a config at all (a
// syntax error, several documents, a top level that is not a mapping).
func decode(ps *problems, data []byte) *Config {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		if ye, ok := errors.AsType[yaml.Error](err); ok {
			ps.addAt(tokenPlace(ye.GetToken()), "", "%s", ye.GetMessage())
		} else {
			ps.addAt(place{}, "", "%s", err)
		}
		return nil
	}
	var bodies []ast.Node
	for _, doc := range f.Docs {
		if doc.Body != nil {
			bodies = append(bodies, doc.Body)
		}
	}
	c := &Config{}
	switch len(bodies) {
	case 0:
		return c
	case 1:
	default:
		ps.addAt(nodePlace(bodies[1]), "", "the file holds more than one YAML document; keep one and remove the other \"---\"")
		return nil
	}
	d := newDecoder(ps, bodies[0])
	d.value("", bodies[0], reflect.ValueOf(c).Elem(), false)
	if ps.broken[""] {
		return nil
	}
	c.AgentNames = d.order["agents"]
	c.ConstraintNames = d.order["constraints"]
	return c
}

// decoder turns goccy/go-yaml's syntax tree into a Config.
//
// goccy's strict decoder (yaml.Strict) stops at the first problem, reports
// unknown fields in map order, and silently turns numbers and booleans into
// string fields (provider: 5). optr must report every problem with its
// dotted key and line, so the walk over mappings and lists is written here
// against the Config types' yaml tags; goccy parses the file and decodes
// every scalar.
type decoder struct {
	ps *problems
	// anchors holds every &anchor by name, in file order.
	anchors map[string][]*ast.AnchorNode
	// order holds, for the key of each map, its entries' names in file order.
	order map[string][]string
	// merged counts the entries merge keys have brought in, against
	// maxMerged.
	merged int
}

func newDecoder(ps *problems, body ast.Node) *decoder {
	d := &decoder{ps: ps, anchors: map[string][]*ast.AnchorNode{}, order: map[string][]string{}}
	ast.Walk(visitFunc(func(n ast.Node) {
		if a, ok := n.(*ast.AnchorNode); ok && a.Name != nil && a.Name.GetToken() != nil {
			name := a.Name.GetToken().Value
			d.anchors[name] = append(d.anchors[name], a)
		}
	}), body)
	return d
}

type visitFunc func(ast.Node)

func (f visitFunc) Visit(n ast.Node) ast.Visitor {
	f(n)
	return f
}

// value decodes n, the value of key, into dst. scalar allows numbers where
// dst wants strings (the config:"scalar" tag).
func (d *decoder) value(key string, n ast.Node, dst reflect.Value, scalar bool) {
	n, ok := d.resolve(key, n)
	if !ok {
		return
	}
	switch dst.Kind() {
	case reflect.Struct:
		d.structure(key, n, dst)
	case reflect.Map:
		d.mapping(key, n, dst, scalar)
	case reflect.Slice:
		d.list(key, n, dst, scalar)
	default:
		d.scalar(key, n, dst, scalar)
	}
}

// structure decodes a mapping into a struct by its fields' yaml tags.
func (d *decoder) structure(key string, n ast.Node, dst reflect.Value) {
	if _, ok := n.(*ast.NullNode); ok {
		return
	}
	entries, ok := d.entries(key, n, 0)
	if !ok {
		return
	}
	fields := fieldsOf(dst.Type())
	for _, e := range entries {
		k := joinKey(key, e.name)
		f, ok := fields[e.name]
		if !ok {
			d.ps.fail(nodePlace(e.key), k, "unknown key %q; the keys here are %s", e.name, oneOf(tagsOf(dst.Type())))
			continue
		}
		d.ps.record(k, e.place())
		d.value(k, e.value, dst.Field(f.index), f.scalar)
	}
}

// mapping decodes a mapping into a map, keeping its names in file order.
func (d *decoder) mapping(key string, n ast.Node, dst reflect.Value, scalar bool) {
	if _, ok := n.(*ast.NullNode); ok {
		return
	}
	entries, ok := d.entries(key, n, 0)
	if !ok {
		return
	}
	m := reflect.MakeMapWithSize(dst.Type(), len(entries))
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		k := joinKey(key, e.name)
		d.ps.record(k, e.place())
		v := reflect.New(dst.Type().Elem()).Elem()
		d.value(k, e.value, v, scalar)
		m.SetMapIndex(reflect.ValueOf(e.name).Convert(dst.Type().Key()), v)
		names = append(names, e.name)
	}
	dst.Set(m)
	d.order[key] = names
}

// list decodes a sequence into a slice.
func (d *decoder) list(key string, n ast.Node, dst reflect.Value, scalar bool) {
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		d.ps.fail(nodePlace(n), key, "want a list, got %s", describe(n))
		return
	}
	out := reflect.MakeSlice(dst.Type(), len(seq.Values), len(seq.Values))
	for i, v := range seq.Values {
		k := fmt.Sprintf("%s[%d]", key, i)
		d.ps.record(k, nodePlace(v))
		d.value(k, v, out.Index(i), scalar)
	}
	dst.Set(out)
}

// scalar checks that n has the kind dst wants, then lets goccy decode it.
func (d *decoder) scalar(key string, n ast.Node, dst reflect.Value, scalar bool) {
	want, ok := wantKind(dst.Type(), n, scalar)
	if !ok {
		d.ps.fail(nodePlace(n), key, "want %s, got %s", want, describe(n))
		return
	}
	if err := yaml.NodeToValue(n, dst.Addr().Interface(), yaml.Strict()); err != nil {
		msg := err.Error()
		if ye, ok := errors.AsType[yaml.Error](err); ok {
			msg = ye.GetMessage()
		}
		d.ps.fail(nodePlace(n), key, "%s", msg)
	}
}

var durationType = reflect.TypeFor[Duration]()

// wantKind describes what a scalar of type t must be written as, and
// whether n is that.
func wantKind(t reflect.Type, n ast.Node, scalar bool) (string, bool) {
	k := kindOf(n)
	switch {
	case t == durationType:
		return `a duration such as "30s" or "5m"`, k == "string"
	case t.Kind() == reflect.String && scalar:
		return "a string or a number", k == "string" || k == "integer" || k == "float"
	case t.Kind() == reflect.String:
		return "a string", k == "string"
	case t.Kind() == reflect.Bool:
		return "true or false", k == "boolean"
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		return "a whole number", k == "integer"
	case t.Kind() == reflect.Float64:
		return "a number", k == "integer" || k == "float"
	}
	return t.String(), false
}
