package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gowebpki/jcs"
)

// Chain turns drafts into entries that follow head: seq head.Seq+1, +2, …,
// each entry's prev the hash of the one before. It does no I/O.
func Chain(head Head, drafts ...Draft) ([]Entry, error) {
	if err := head.validate(); err != nil {
		return nil, err
	}
	entries := make([]Entry, 0, len(drafts))
	for i, d := range drafts {
		if err := d.validate(); err != nil {
			return nil, fmt.Errorf("ledger draft %d (kind %q): %w", i+1, d.Kind, err)
		}
		e := Entry{
			Seq:      head.Seq + 1,
			Time:     d.Time.UTC().Format(timeLayout),
			Kind:     d.Kind,
			Run:      d.Run,
			Workflow: d.Workflow,
			Prev:     head.prevHash(),
			Fields:   d.Fields,
		}
		if err := e.seal(); err != nil {
			return nil, fmt.Errorf("ledger draft %d (kind %q): %w", i+1, d.Kind, err)
		}
		entries = append(entries, e)
		head = e.Head()
	}
	return entries, nil
}

// seal sets e's hash, the SHA-256 of its canonical form without the
// hash member, and keeps the line it is written as (Line), canonicalising
// its members once. RFC 8785 writes an object's members in the order of
// their names, each on its own, so both forms are the members that sort
// before "hash", then (in the line only) the hash, then the rest: seal
// canonicalises those two halves and joins them.
func (e *Entry) seal() error {
	m, err := e.members(false)
	if err != nil {
		return err
	}
	below := make(map[string]any)
	for k, v := range m {
		// Against an ASCII name, Go's byte order of UTF-8 strings is
		// RFC 8785's order of UTF-16 code units.
		if k < memberHash {
			below[k] = v
			delete(m, k)
		}
	}
	first, err := canonicalObject(below)
	if err != nil {
		return err
	}
	rest, err := canonicalObject(m)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(joinObjects(first, rest))
	e.Hash = hex.EncodeToString(sum[:])
	hash := []byte(`{"` + memberHash + `":"` + e.Hash + `"}`)
	e.made = &madeLine{
		seq: e.Seq, time: e.Time, kind: e.Kind, run: e.Run, workflow: e.Workflow, prev: e.Prev, hash: e.Hash,
		fields: e.Fields, line: append(joinObjects(first, hash, rest), '\n'),
	}
	return nil
}

// joinObjects joins canonical JSON objects into one whose members are
// theirs, in the order given.
func joinObjects(objects ...[]byte) []byte {
	n := 2
	for _, o := range objects {
		n += len(o)
	}
	out := make([]byte, 0, n)
	out = append(out, '{')
	for _, o := range objects {
		if inner := o[1 : len(o)-1]; len(inner) > 0 {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, inner...)
		}
	}
	return append(out, '}')
}

func (h Head) validate() error {
	switch {
	case h.Seq < 0:
		return fmt.Errorf("ledger head seq %d is negative", h.Seq)
	case h.Seq == 0 && h.Hash != "":
		return fmt.Errorf("ledger head has hash %q but seq 0; an empty ledger has neither", h.Hash)
	case h.Seq > 0 && !isHexHash([]byte(h.Hash)):
		return fmt.Errorf("ledger head hash %q is not 64 lowercase hex digits", h.Hash)
	}
	return nil
}

func (d Draft) validate() error {
	switch {
	case d.Kind == "":
		return fmt.Errorf("kind is empty")
	case d.Run == "":
		return fmt.Errorf("run id is empty")
	case d.Time.IsZero():
		return fmt.Errorf("time is not set")
	}
	for _, m := range []struct{ name, value string }{{memberKind, d.Kind}, {memberRun, d.Run}, {memberWorkflow, d.Workflow}} {
		if i := strings.IndexFunc(m.value, needsEscape); i >= 0 {
			return fmt.Errorf("%s %q has a %q at byte %d: quotes, backslashes and control characters are not allowed in ids", m.name, m.value, m.value[i], i)
		}
	}
	for name := range d.Fields {
		if isCommonMember(name) {
			return fmt.Errorf("field %q is a common ledger member; set it through the Draft's own field or rename it", name)
		}
	}
	return nil
}

// canonicalObject encodes members as RFC 8785 canonical JSON. It refuses
// numbers beyond ±MaxSafeInteger, which canonical JSON cannot carry exactly.
func canonicalObject(members map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(members); err != nil {
		return nil, fmt.Errorf("encode members: %w", err)
	}
	if err := checkNumbers(buf.Bytes()); err != nil {
		return nil, err
	}
	out, err := jcs.Transform(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("canonicalise members: %w", err)
	}
	return out, nil
}

// checkNumbers refuses any number in the JSON document b whose magnitude
// exceeds MaxSafeInteger, naming where it is.
func checkNumbers(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("decode members: %w", err)
	}
	return walkNumbers(v, "")
}

func walkNumbers(v any, path string) error {
	switch v := v.(type) {
	case json.Number:
		if !safeNumber(string(v)) {
			return fmt.Errorf("number %s at %s is beyond ±%d and cannot be stored exactly; write it as a string", v, path, MaxSafeInteger)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys) // report the same member every time
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if err := walkNumbers(v[k], p); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := walkNumbers(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// safeNumber reports whether the JSON number literal n lies within
// ±MaxSafeInteger. Integer literals are compared exactly, so 2^53+1 (which
// would round to 2^53 as a double) is caught.
func safeNumber(n string) bool {
	if !strings.ContainsAny(n, ".eE") {
		i, err := strconv.ParseInt(n, 10, 64)
		return err == nil && -MaxSafeInteger <= i && i <= MaxSafeInteger
	}
	f, err := strconv.ParseFloat(n, 64)
	return err == nil && math.Abs(f) <= MaxSafeInteger
}

// isHexHash reports whether b is 64 lowercase hex digits. It looks at
// eight bytes at a time: the verifier checks two a line.
func isHexHash(b []byte) bool {
	if len(b) != 64 {
		return false
	}
	const (
		ones  = 0x0101010101010101
		highs = 0x80 * ones
	)
	ok := uint64(highs)
	for i := 0; i < 64; i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// For bytes below 0x80 (a byte from 0x80 fails by its own high
		// bit, whatever its carry does), adding 0x80-lo sets the high bit
		// of the bytes from lo, without a carry between bytes: the high
		// bit of each byte in '0'-'9' or 'a'-'f'.
		digit := (x + (0x80-'0')*ones) &^ (x + (0x80-'9'-1)*ones)
		lower := (x + (0x80-'a')*ones) &^ (x + (0x80-'f'-1)*ones)
		ok &= (digit | lower) &^ x
	}
	return ok == highs
}

// needsEscape reports whether canonical JSON escapes r. The common string
// members may not contain such characters, so that a verifier can compare
// their bytes as written.
func needsEscape(r rune) bool { return r < 0x20 || r == '"' || r == '\\' }
