package ledger

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fuzz targets below cover the ledger's parsers that had none (issue
// 27 item 15): commit trailers, segment and tree names, tree (.merkle)
// files, checkpoints signed or not, and proof files. Each checks that the
// parser never panics and that whatever it accepts is exactly what the
// matching writer writes, so a forged value cannot be read as another.

// FuzzParseTrailers: accepted trailers are one count and one head that
// WithTrailers writes back to the same head.
func FuzzParseTrailers(f *testing.F) {
	h := Head{Seq: 3, Hash: strings.Repeat("ab", 32)}
	f.Add(WithTrailers("optr: record run 1", h))
	f.Add(WithTrailers("msg", Head{}))
	f.Add("Optr-Ledger-Size: 01\nOptr-Ledger-Head: " + ZeroHash + "\n")
	f.Add("Optr-Ledger-Size: 1\r\nOptr-Ledger-Head: " + strings.Repeat("A", 64))
	f.Add("no trailers")
	f.Fuzz(func(t *testing.T, msg string) {
		head, ok, err := ParseTrailers(msg)
		if err != nil || !ok {
			return
		}
		if head.Seq < 0 || (head.Seq == 0) != (head.Hash == "") {
			t.Fatalf("ParseTrailers(%q) = %+v", msg, head)
		}
		back, ok, err := ParseTrailers(WithTrailers(msg, head))
		if err != nil || !ok || back != head {
			t.Fatalf("trailers of %+v read back as %+v, %v, %v", head, back, ok, err)
		}
	})
}

// FuzzSegmentNames: a name accepted as a segment or a tree file is the
// one SegmentName (or its tree's) writes for the range it names.
func FuzzSegmentNames(f *testing.F) {
	f.Add(SegmentName(1, 100))
	f.Add(strings.TrimSuffix(SegmentName(7, 7), ".jsonl") + treeExt)
	f.Add("000000000000-000000000001.jsonl")
	f.Add("00000000000+-000000000001.jsonl")
	f.Add("999999999999-999999999999.merkle")
	f.Fuzz(func(t *testing.T, name string) {
		if first, last, err := ParseSegmentName(name); err == nil {
			if first < 1 || last < first || SegmentName(first, last) != name {
				t.Fatalf("ParseSegmentName(%q) = %d, %d", name, first, last)
			}
		}
		if first, last, err := ParseTreeName(name); err == nil {
			want := strings.TrimSuffix(SegmentName(first, last), ".jsonl") + treeExt
			if want != name || !IsTreeName(name) {
				t.Fatalf("ParseTreeName(%q) = %d, %d", name, first, last)
			}
		}
	})
}

// FuzzParseTree: a tree file that parses is byte for byte the file its
// content marshals to (the sum line covers the rest, so a changed node
// cannot pass as another).
func FuzzParseTree(f *testing.F) {
	var buf bytes.Buffer
	if _, err := WriteSynthetic(&buf, 5); err != nil {
		f.Fatal(err)
	}
	seg := buf.Bytes()
	tree, err := SegmentTree(nil, seg)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tree)
	f.Add(tree[:len(tree)-1])
	f.Add([]byte(treeMagic + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := parseTree(data)
		if err != nil {
			return
		}
		if got := st.marshal(); !bytes.Equal(got, data) {
			t.Fatalf("parseTree accepted\n%q\nwhich marshals to\n%q", data, got)
		}
	})
}

// FuzzOpenCheckpoint: a checkpoint opens with the key only when it is the
// key's signed note over the text it parses to; any body that parses is
// the Text of what it parses to, extension lines aside.
func FuzzOpenCheckpoint(f *testing.F) {
	skey, vkey, err := GenerateKey("optr/o/r")
	if err != nil {
		f.Fatal(err)
	}
	cp := TreeHead{Origin: "optr/o/r", Size: 5}
	cp.Root[0] = 1
	signed, err := cp.Sign(skey)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(signed, true)
	f.Add([]byte(cp.Text()), false)
	f.Add([]byte(cp.Text()+"ext\n"), false)
	f.Add([]byte("o\n-0\nAAAA\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, withKey bool) {
		key := ""
		if withKey {
			key = vkey
		}
		c, _, err := OpenCheckpoint(data, key)
		if err != nil {
			return
		}
		if withKey && !bytes.HasPrefix(data, []byte(c.Text())) {
			t.Fatalf("a checkpoint verified with the key but does not start with its text %q:\n%q", c.Text(), data)
		}
		if c.Size < 0 || c.Origin == "" || strings.Contains(c.Origin, "\n") {
			t.Fatalf("OpenCheckpoint(%q) = %+v", data, c)
		}
		again, err := ParseCheckpoint([]byte(c.Text()))
		if err != nil || again != c {
			t.Fatalf("checkpoint %+v reads back as %+v, %v", c, again, err)
		}
	})
}

// FuzzProofCheck: a proof file (the JSON `optr ledger prove` writes) that
// Check accepts names an entry of the checkpoint it proves. Seeds are real
// proofs of a small ledger; the fuzzer changes the file's bytes.
func FuzzProofCheck(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "ledger.jsonl")
	var buf bytes.Buffer
	if _, err := WriteSynthetic(&buf, 6); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		f.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	for _, seq := range []int64{1, 4, 6} {
		p, _, err := Prove(path, LocalOrigin, seq)
		if err != nil {
			f.Fatal(err)
		}
		data, err := json.Marshal(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	ts, err := VerifyTree(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p Proof
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if dec.Decode(&p) != nil {
			return
		}
		cp, err := p.Check("")
		if err != nil {
			return
		}
		// The seeds' checkpoint is the whole ledger: a proof against it
		// must name one of its lines at its seq.
		if cp.Origin == LocalOrigin && cp.Size == int64(len(lines)) && cp.Root == ts.Root {
			if p.Seq < 1 || p.Seq > int64(len(lines)) || p.Entry != string(lines[p.Seq-1]) {
				t.Fatalf("a proof of entry %d accepted for %q", p.Seq, p.Entry)
			}
		}
	})
}
