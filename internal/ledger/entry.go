package ledger

import (
	"fmt"
	"reflect"
	"slices"
	"time"
)

// ZeroHash is the prev of the first entry: 64 zeros.
const ZeroHash = "0000000000000000000000000000000000000000000000000000000000000000"

// The common members every entry has. A Draft's Fields may not use them.
const (
	memberHash     = "hash"
	memberKind     = "kind"
	memberPrev     = "prev"
	memberRun      = "run"
	memberSeq      = "seq"
	memberTime     = "time"
	memberWorkflow = "workflow"
)

// The members that hold a run's totals (architecture §4.17) in its run and
// checkpoint entries: what the run spent in tokens and in US dollars — the
// known part, null when nothing of it is known — and whether some part is
// unknown (a call without usage, a model without a price, a command agent
// outside the model gateway). ReadWindow reads them without decoding the
// rest of the entry.
const (
	memberTokens        = "tokens"
	memberCostUSD       = "cost_usd"
	memberTokensUnknown = "tokens_unknown"
	memberCostUnknown   = "cost_unknown"
)

// The entry kinds optr writes. Kind is an open set: readers must skip kinds
// they do not know.
const (
	KindRun        = "run"
	KindCheckpoint = "checkpoint"
	KindDecision   = "decision"
	KindEscalation = "escalation"
	// KindOutcome is what people did with a pull request optr opened
	// (architecture §4.19): merged, closed unmerged, or reverted later. Its run
	// is the run that opened the pull request, which the ledger must hold
	// before it (Verify).
	KindOutcome = "outcome"
)

// MaxSafeInteger is the largest integer a JSON number in an entry may hold
// (2^53 − 1, JavaScript's Number.MAX_SAFE_INTEGER). RFC 8785 numbers are IEEE
// 754 doubles, so a larger integer would not survive canonicalisation exactly;
// write it as a string instead.
const MaxSafeInteger = 1<<53 - 1

// timeLayout is how an entry's time is written: RFC 3339 in UTC with as many
// fractional digits as needed.
const timeLayout = time.RFC3339Nano

// Head identifies the last entry of a ledger. The zero Head is an empty
// ledger: the next entry gets seq 1 and prev ZeroHash.
type Head struct {
	// Seq is the last entry's seq, 0 for an empty ledger.
	Seq int64
	// Hash is the last entry's hash, empty for an empty ledger.
	Hash string
}

// prevHash is the prev of the entry that follows h.
func (h Head) prevHash() string {
	if h.Seq == 0 {
		return ZeroHash
	}
	return h.Hash
}

// Draft is an entry before it is chained: what happened, without its place
// in the ledger.
type Draft struct {
	// Kind is the entry kind, e.g. KindRun. Required.
	Kind string
	// Run is the run id. Required.
	Run string
	// Workflow is the workflow slug; it may be empty for entries that
	// belong to no workflow.
	Workflow string
	// Time is when it happened. Required; it is written in UTC.
	Time time.Time
	// Fields are the kind-specific members, written at the top level of
	// the entry. Values may be anything encoding/json marshals; numbers
	// must lie within ±MaxSafeInteger. A field may not be named like a
	// common member (seq, time, kind, run, workflow, prev, hash).
	Fields map[string]any
}

// Entry is one chained ledger entry.
type Entry struct {
	// Seq is the entry's position: 1 for the first entry.
	Seq int64
	// Time is the RFC 3339 UTC time as written.
	Time string
	// Kind is the entry kind.
	Kind string
	// Run is the run id.
	Run string
	// Workflow is the workflow slug.
	Workflow string
	// Prev is the previous entry's hash, ZeroHash for the first entry.
	Prev string
	// Hash is the SHA-256 of the canonical entry without its hash member.
	Hash string
	// Fields are the kind-specific members. Entries read back by Scan hold
	// JSON values as encoding/json decodes them with UseNumber
	// (json.Number, string, bool, nil, []any, map[string]any).
	Fields map[string]any

	// made is the entry's line as Chain made it, nil for entries read
	// back: the one owner of "the canonical line of this entry", so that
	// the append and the attestation do not canonicalise it again.
	made *madeLine
}

// madeLine is a line seal made and the members it was made from: Line
// returns it only while the entry still holds them.
type madeLine struct {
	seq                                   int64
	time, kind, run, workflow, prev, hash string
	fields                                map[string]any
	line                                  []byte
}

// of reports whether m was made from e's members. The Fields map is
// compared by identity: its content is what the hash covers.
func (m *madeLine) of(e Entry) bool {
	return m != nil && m.seq == e.Seq && m.time == e.Time && m.kind == e.Kind && m.run == e.Run &&
		m.workflow == e.Workflow && m.prev == e.Prev && m.hash == e.Hash && sameMap(m.fields, e.Fields)
}

// sameMap reports whether a and b are the same map (or both nil).
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// Equal reports whether e and o are the same entry: the same members,
// whether or not either kept the line Chain made. (go-cmp compares
// entries with it.)
func (e Entry) Equal(o Entry) bool {
	return e.Seq == o.Seq && e.Time == o.Time && e.Kind == o.Kind && e.Run == o.Run && e.Workflow == o.Workflow &&
		e.Prev == o.Prev && e.Hash == o.Hash && reflect.DeepEqual(e.Fields, o.Fields)
}

// Head returns the Head a ledger has when e is its last entry.
func (e Entry) Head() Head { return Head{Seq: e.Seq, Hash: e.Hash} }

// Line returns the entry exactly as it is written to the ledger: its RFC
// 8785 canonical JSON followed by a newline. For an entry Chain made, and
// not changed since, it is the line Chain made, not a copy: the caller
// must not modify it.
func (e Entry) Line() ([]byte, error) {
	if e.made.of(e) {
		return slices.Clip(e.made.line), nil
	}
	m, err := e.members(true)
	if err != nil {
		return nil, err
	}
	b, err := canonicalObject(m)
	if err != nil {
		return nil, fmt.Errorf("encode ledger entry %d: %w", e.Seq, err)
	}
	return append(b, '\n'), nil
}

// members returns the entry as one map of top-level members, with or
// without its hash.
func (e Entry) members(withHash bool) (map[string]any, error) {
	m := make(map[string]any, len(e.Fields)+7)
	for k, v := range e.Fields {
		if isCommonMember(k) {
			return nil, fmt.Errorf("encode ledger entry %d: field %q is a common ledger member; set the Entry's own field instead", e.Seq, k)
		}
		m[k] = v
	}
	m[memberSeq] = e.Seq
	m[memberTime] = e.Time
	m[memberKind] = e.Kind
	m[memberRun] = e.Run
	m[memberWorkflow] = e.Workflow
	m[memberPrev] = e.Prev
	if withHash {
		m[memberHash] = e.Hash
	}
	return m, nil
}

// isCommonMember reports whether name is one of the members every entry has.
func isCommonMember(name string) bool {
	switch name {
	case memberHash, memberKind, memberPrev, memberRun, memberSeq, memberTime, memberWorkflow:
		return true
	}
	return false
}
