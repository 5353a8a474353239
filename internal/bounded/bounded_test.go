package bounded

import (
	"errors"
	"strings"
	"testing"
)

// countingReader counts the bytes read from it.
type countingReader struct {
	r strings.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestReadAll: input up to the bound is read whole; one byte more is a
// *TooLargeError naming the bound, after reading no more than that byte.
func TestReadAll(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in    string
		limit int64
		err   string
	}{
		{"", 0, ""},
		{"abc", 3, ""},
		{"abcd", 3, "more than 3 bytes"},
		{strings.Repeat("x", 1<<20+1), 1 << 20, "more than 1 MiB"},
		{strings.Repeat("x", 3<<20), 1<<20 + 5, "more than 1048581 bytes"},
	} {
		r := &countingReader{r: *strings.NewReader(tt.in)}
		got, err := ReadAll(r, tt.limit)
		if tt.err == "" {
			if err != nil || string(got) != tt.in {
				t.Errorf("ReadAll(%d bytes, %d) = %d bytes, %v; want it whole", len(tt.in), tt.limit, len(got), err)
			}
			continue
		}
		var tl *TooLargeError
		if !errors.As(err, &tl) || tl.Limit != tt.limit || err.Error() != tt.err || got != nil {
			t.Errorf("ReadAll(%d bytes, %d) = %d bytes, %v; want %q", len(tt.in), tt.limit, len(got), err, tt.err)
		}
		if int64(r.n) > tt.limit+1 {
			t.Errorf("ReadAll(%d bytes, %d) read %d bytes, more than one past the bound", len(tt.in), tt.limit, r.n)
		}
	}
}
