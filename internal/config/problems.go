package config

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// place is where something is written in the file; the zero place is nowhere.
type place struct{ line, column int }

// problems collects every problem found while reading one file, and
// remembers where each key is written so that checks made after decoding
// can still point at the right line.
type problems struct {
	file   string
	places map[string]place // dotted key → where its value is written
	errs   []*Error
	// reported holds the keys that already have a problem; broken those
	// whose value could not be decoded, so that nothing below them is
	// reported again as missing or wrong.
	reported map[string]bool
	broken   map[string]bool
}

func newProblems(file string) *problems {
	return &problems{file: file, places: map[string]place{}, reported: map[string]bool{}, broken: map[string]bool{}}
}

// record notes that key is written at p.
func (ps *problems) record(key string, p place) { ps.places[key] = p }

// written reports whether key appears in the file. Defaults use it to tell
// "hard: false" from no hard key at all.
func (ps *problems) written(key string) bool {
	_, ok := ps.places[key]
	return ok
}

// placeOf returns where key is written or, when it is not (a missing
// required key), where its nearest written parent is.
func (ps *problems) placeOf(key string) place {
	for k := key; k != ""; k = parentKey(k) {
		if p, ok := ps.places[k]; ok {
			return p
		}
	}
	return place{}
}

// parentKey strips the last ".name" or "[i]" from key.
func parentKey(key string) string {
	return key[:max(strings.LastIndexAny(key, ".["), 0)]
}

// add reports a problem with key, unless key already has one or sits in a
// value that could not be decoded: a value that failed to decode is not
// also reported as missing.
func (ps *problems) add(key, format string, args ...any) {
	ps.addAt(ps.placeOf(key), key, format, args...)
}

// addAt is add with an explicit place.
func (ps *problems) addAt(p place, key, format string, args ...any) {
	if ps.reported[key] {
		return
	}
	for k := key; k != ""; k = parentKey(k) {
		if ps.broken[k] {
			return
		}
	}
	ps.reported[key] = true
	ps.errs = append(ps.errs, &Error{File: ps.file, Line: p.line, Column: p.column, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// fail reports that the value of key at p could not be decoded.
func (ps *problems) fail(p place, key, format string, args ...any) {
	ps.addAt(p, key, format, args...)
	ps.broken[key] = true
}

// err joins the problems in file order (those without a place last), or
// returns nil when there are none.
func (ps *problems) err() error {
	if len(ps.errs) == 0 {
		return nil
	}
	sorted := slices.Clone(ps.errs)
	slices.SortStableFunc(sorted, func(a, b *Error) int {
		if (a.Line == 0) != (b.Line == 0) {
			if a.Line == 0 {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	out := make([]error, len(sorted))
	for i, e := range sorted {
		out[i] = e
	}
	return errors.Join(out...)
}
