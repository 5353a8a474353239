package ledger

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// canonicalSeeds are documents at the edges of RFC 8785, canonical or not.
var canonicalSeeds = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1`, `-1`, `true`, `false`, `null`, `nul`, `truex`,
	`{"a":1}`, `{"a":1,"b":2}`, `{"b":2,"a":1}`, `{"a":1,"a":1}`, `{"a" :1}`, `{ "a":1}`, `{"a":1} `, ` {"a":1}`,
	`{"a":[1,2,{"b":null}]}`, `[1,]`, `[,1]`, `{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`, `[1 2]`,
	`1.5`, `1.50`, `0.1`, `.1`, `1.`, `01`, `-01`, `1e21`, `1e+21`, `1E+21`, `1e20`, `100000000000000000000`,
	`123456789012345`, `1234567890123456`, `12345678901234567`, `9007199254740993`, `1e-6`, `0.000001`, `1e-7`, `0.0000001`,
	`1e400`, `-1e400`, `5e-324`, `0.30000000000000004`, `0.3`, `-0.0`, `1e0`, `2.5e-5`, `0.000025`, `123.456`, `1.0000000000000002`,
	`"\u0000"`, `"\u001f"`, `"\u001F"`, `"\u0020"`, `"\u0008"`, `"\b"`, `"\/"`, `"/"`, `"\""`, `"\\"`, `"\t\n\r\f"`,
	"\"\x7f\"", "\"\x01\"", "\"é\"", `"\u00e9"`, "\"\xff\"", "\"\xed\xa0\x80\"", "\"\xf0\x9f\x98\x80\"", `"\ud83d\ude00"`,
	"{\"\ue000\":1,\"\U0001F600\":2}", "{\"\U0001F600\":2,\"\ue000\":1}", `{"\u0001":1,"a":2}`, `{"a":2,"\u0001":1}`,
	`{"\"":1,"#":2}`, `{"#":2,"\"":1}`, `{"\\":1,"]":2}`, `{"]":2,"\\":1}`, `{"":1,"a":2}`, `{"a":1,"":2}`,
	`{"a":1}{}`, `"unterminated`, `"\u00`, `"\x"`, `[[[[[]]]]]`, "{\"a\":1}\n",
}

// deepSeeds sit at jcs's nesting limit. They stay out of the fuzz corpus:
// minimising a 20 kB input costs the fuzzer minutes.
var deepSeeds = []string{
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
	strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

// jcsCanonical is the reference: b is canonical when jcs leaves it unchanged.
func jcsCanonical(b []byte) bool {
	out, err := jcs.Transform(b)
	return err == nil && bytes.Equal(out, b)
}

func TestCheckCanonicalAgreesWithJCS(t *testing.T) {
	t.Parallel()
	for _, s := range append(canonicalSeeds, deepSeeds...) {
		b := []byte(s)
		want := jcsCanonical(b)
		err := checkCanonical(b)
		if got := err == nil; got != want {
			t.Errorf("checkCanonical(%.60q) = %v, jcs says canonical = %v", s, err, want)
		}
	}
}

// FuzzCanonicalAgreesWithJCS holds the hand-written checker to jcs: a
// document is canonical for one exactly when it is for the other.
func FuzzCanonicalAgreesWithJCS(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	for _, line := range splitLines(mustRead(f, "golden.jsonl")) {
		f.Add(line[:len(line)-1])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := jcsCanonical(b)
		err := checkCanonical(b)
		if got := err == nil; got != want {
			t.Fatalf("checkCanonical(%q) = %v, jcs says canonical = %v", b, err, want)
		}
	})
}

func mustRead(f *testing.F, name string) []byte {
	f.Helper()
	b, err := readFileTestdata(name)
	if err != nil {
		f.Fatal(err)
	}
	return b
}
