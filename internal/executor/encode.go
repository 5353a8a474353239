package executor

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/optr-dev/optr/internal/spool"
)

// plain is Result without its MarshalJSON.
type plain Result

// MarshalJSON encodes r as encoding/json encodes its fields, with an
// output held on disk read back in its place: the same bytes whether the
// output was kept in memory or not. To write a large result without
// holding it in memory, use EncodeJSON.
func (r *Result) MarshalJSON() ([]byte, error) {
	if !r.Spooled() {
		return json.Marshal((*plain)(r))
	}
	var b bytes.Buffer
	if err := r.EncodeJSON(&b); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// EncodeJSON writes r's compact JSON encoding (MarshalJSON) and a newline
// to w, streaming the outputs held on disk (OutputFile, RawFile) into it
// rather than reading them into memory: each is escaped on the way exactly
// as encoding/json escapes a string, and OutputBase64 is written for an
// output that is not valid UTF-8.
func (r *Result) EncodeJSON(w io.Writer) error {
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return err
	}
	// Markers no agent can forge: a NUL and a random nonce, which the
	// encoding turns into one quoted string each.
	mark := func(what string) string { return "\x00optr-spool-" + what + "-" + hex.EncodeToString(nonce[:]) }
	c := *r
	type splice struct {
		marker string
		write  func(io.Writer) error
	}
	var splices []splice
	if f := r.OutputFile; f != nil {
		c.Output = mark("output")
		splices = append(splices, splice{c.Output, func(w io.Writer) error { return writeJSONString(w, f) }})
		if !f.ValidUTF8 {
			c.OutputBase64 = mark("base64")
			splices = append(splices, splice{c.OutputBase64, func(w io.Writer) error { return writeBase64(w, f) }})
		}
	}
	if f := r.RawFile; f != nil {
		c.Raw = mark("raw")
		splices = append(splices, splice{c.Raw, func(w io.Writer) error { return writeJSONString(w, f) }})
	}
	data, err := json.Marshal((*plain)(&c))
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, s := range splices {
		q, _ := json.Marshal(s.marker)
		i := bytes.Index(data, q)
		if i < 0 {
			return errors.New("encode result: a spooled output has no place in the encoding")
		}
		bw.Write(data[:i])
		if err := s.write(bw); err != nil {
			return fmt.Errorf("encode the output of %s: %w", r.Agent, err)
		}
		data = data[i+len(q):]
	}
	bw.Write(data)
	bw.WriteByte('\n')
	return bw.Flush()
}

// writeJSONString writes f's bytes as one JSON string: encoding/json's
// escaping is the same for every character wherever it stands, so the file
// is escaped a piece at a time, cut between characters.
func writeJSONString(w io.Writer, f *spool.File) error {
	fh, err := f.Open()
	if err != nil {
		return err
	}
	defer fh.Close()
	if _, err := io.WriteString(w, `"`); err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	carry := 0
	var total int64
	for {
		n, rerr := fh.Read(buf[carry:])
		total += int64(n)
		n += carry
		cut := n
		if rerr == nil {
			cut = spool.Whole(buf[:n])
		}
		if cut > 0 {
			q, err := json.Marshal(string(buf[:cut]))
			if err != nil {
				return err
			}
			if _, err := w.Write(q[1 : len(q)-1]); err != nil {
				return err
			}
		}
		carry = copy(buf, buf[cut:n])
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return rerr
		}
	}
	if total != f.Size {
		return fmt.Errorf("the spooled output %s has %d bytes, not %d: it was changed", f.Path, total, f.Size)
	}
	_, err = io.WriteString(w, `"`)
	return err
}

// writeBase64 writes f's bytes in standard base64 as one JSON string
// (base64 needs no escaping).
func writeBase64(w io.Writer, f *spool.File) error {
	if _, err := io.WriteString(w, `"`); err != nil {
		return err
	}
	enc := base64.NewEncoder(base64.StdEncoding, w)
	if _, err := f.WriteTo(enc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(w, `"`)
	return err
}
