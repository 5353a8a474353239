package config

import "github.com/goccy/go-yaml/ast"

// Anchors (&name), aliases (*name) and merge keys (<<: *name) are resolved
// here, against the syntax tree, so that every key keeps the line it is
// written on.

// maxMerged bounds the entries merge keys may bring in over a whole file,
// so that anchors merged into anchors cannot multiply without end (a
// "billion laughs" file).
const maxMerged = 10000

// resolve follows anchors and aliases to the node that holds the value.
func (d *decoder) resolve(key string, n ast.Node) (ast.Node, bool) {
	for range maxAliasChain {
		switch x := n.(type) {
		case *ast.AnchorNode:
			n = x.Value
		case *ast.AliasNode:
			a := d.anchorFor(x)
			if a == nil {
				d.ps.fail(nodePlace(x), key, "alias %s names no anchor defined before it", x.String())
				return nil, false
			}
			n = a.Value
		default:
			return n, n != nil
		}
	}
	d.ps.fail(nodePlace(n), key, "aliases nest more than %d deep", maxAliasChain)
	return nil, false
}

// maxAliasChain bounds alias-to-alias chains and merge-key nesting, so that
// a hostile file cannot make the walk loop.
const maxAliasChain = 16

// anchorFor returns the last anchor with alias's name defined before alias.
func (d *decoder) anchorFor(alias *ast.AliasNode) *ast.AnchorNode {
	if alias.Value == nil || alias.Value.GetToken() == nil || alias.GetToken() == nil {
		return nil
	}
	at := alias.GetToken().Position.Offset
	var found *ast.AnchorNode
	for _, a := range d.anchors[alias.Value.GetToken().Value] {
		if tk := a.GetToken(); tk != nil && tk.Position.Offset < at {
			found = a
		}
	}
	return found
}

// entry is one key and value of a mapping.
type entry struct {
	name       string
	key, value ast.Node
}

// place is where errors about the entry point: its value when that is a
// scalar written on the key's line, else the key.
func (e entry) place() place {
	switch kindOf(e.value) {
	case "mapping", "list", "null", "other":
		return nodePlace(e.key)
	}
	return nodePlace(e.value)
}

// entries lists a mapping's entries. Merge keys (<<: *base) are expanded
// the YAML way: keys written in the mapping win over merged ones, and among
// merged mappings the first wins. Merged entries come first.
func (d *decoder) entries(key string, n ast.Node, depth int) ([]entry, bool) {
	var pairs []*ast.MappingValueNode
	switch m := n.(type) {
	case *ast.MappingNode:
		pairs = m.Values
	case *ast.MappingValueNode:
		pairs = []*ast.MappingValueNode{m}
	default:
		d.ps.fail(nodePlace(n), key, "want a mapping of keys to values, got %s", describe(n))
		return nil, false
	}
	var written, merged []entry
	for _, mv := range pairs {
		if mv.Key != nil && mv.Key.IsMergeKey() {
			merged = append(merged, d.merge(key, mv.Value, depth)...)
			continue
		}
		k, ok := d.resolve(key, mv.Key)
		if !ok {
			continue
		}
		s, ok := k.(*ast.StringNode)
		if !ok {
			d.ps.fail(nodePlace(k), joinKey(key, tokenText(k)), "keys must be strings, got %s; quote it", describe(k))
			continue
		}
		written = append(written, entry{name: s.Value, key: mv.Key, value: mv.Value})
	}
	seen := map[string]bool{}
	for _, e := range written {
		seen[e.name] = true
	}
	var out []entry
	for _, e := range merged {
		if !seen[e.name] {
			seen[e.name] = true
			out = append(out, e)
		}
	}
	return append(out, written...), true
}

// merge returns the entries a merge key's value brings in: one mapping or a
// list of mappings.
func (d *decoder) merge(key string, v ast.Node, depth int) []entry {
	if depth >= maxAliasChain {
		d.ps.fail(d.ps.placeOf(key), key, "merge keys (<<) nest more than %d deep", maxAliasChain)
		return nil
	}
	if d.merged > maxMerged {
		d.ps.fail(d.ps.placeOf(key), key, "merge keys (<<) bring in more than %d entries; write the entries out", maxMerged)
		return nil
	}
	v, ok := d.resolve(key, v)
	if !ok {
		return nil
	}
	sources := []ast.Node{v}
	if seq, ok := v.(*ast.SequenceNode); ok {
		sources = seq.Values
	}
	var out []entry
	for _, src := range sources {
		src, ok := d.resolve(key, src)
		if !ok {
			continue
		}
		es, _ := d.entries(key, src, depth+1)
		d.merged += len(es)
		out = append(out, es...)
	}
	return out
}
