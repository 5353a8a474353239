package ledger

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzEntryOfAgreesWithWindowEntry: of a line verify accepts, entryOf
// (which reads the members where the check found them) gives the entry
// windowEntry (which reads the line again with gjson) gives, so that
// ReadVerifiedWindow hands fn what ReadWindow would: the same seq, time,
// kind, run, workflow and totals, whatever types the totals are of.
func FuzzEntryOfAgreesWithWindowEntry(f *testing.F) {
	var synth bytes.Buffer
	if _, err := WriteSyntheticWith(&synth, 8, SyntheticOptions{Spend: true, Outcomes: true}); err != nil {
		f.Fatal(err)
	}
	for _, line := range splitLines(synth.Bytes()) {
		f.Add(bytes.TrimSuffix(line, []byte("\n")))
	}
	for _, totals := range []string{
		`"cost_unknown":true,"cost_usd":0.25,`,
		`"cost_usd":null,`,
		`"cost_usd":-1.5e-7,`,
		`"cost_usd":"1",`,
		`"cost_unknown":false,"cost_usd":12,`,
		`"cost_usd":1e+21,`,
	} {
		for _, tokens := range []string{`,"tokens":12`, `,"tokens":null,"tokens_unknown":true`, `,"tokens":-3`, `,"tokens":1.5`, `,"tokens":9007199254740992`, `,"tokens":1e+21`, `,"tokens":[1]`, `,"tokens":{"a":1}`} {
			f.Add([]byte(`{` + totals + `"hash":"` + ZeroHash + `","kind":"run","prev":"` + ZeroHash + `","run":"r1","seq":1,"time":"2026-11-01T10:00:00.5Z"` + tokens + `,"workflow":""}`))
		}
	}
	f.Add([]byte(`{"hash":"` + ZeroHash + `","kind":"outcome","prev":"` + ZeroHash + `","run":"r-é","seq":12,"time":"2028-02-29T23:59:59Z","workflow":"wé"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		info, lerr := parseLine(line)
		if lerr != nil {
			return
		}
		want, werr := windowEntry(line)
		if werr != nil {
			t.Fatalf("verify accepts %s, windowEntry refuses it: %s", line, werr.reason)
		}
		got := entryOf(line, &info)
		want.Line = nil
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("entry of %s (-windowEntry +entryOf):\n%s", line, diff)
		}
		if !json.Valid(line) {
			t.Fatalf("verify accepts %s, which is not JSON", line)
		}
	})
}
