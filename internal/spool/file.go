package spool

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"
)

// File is an output kept on disk: the redacted bytes, their size, SHA-256
// and character count, and whether they are valid UTF-8. A File is
// read-only once its Writer closed.
type File struct {
	// Path is the file's absolute path.
	Path string
	// Size is its length in bytes.
	Size int64
	// SHA256 is the lowercase hex SHA-256 of its bytes.
	SHA256 string
	// Runes is the number of characters, as len([]rune(s)) counts them
	// (every byte of an invalid sequence is one).
	Runes int64
	// ValidUTF8 reports whether the bytes are valid UTF-8.
	ValidUTF8 bool
	// Excerpt is the first bytes of the output (at most ExcerptMax, cut
	// at a character boundary), kept in memory for logs and comments.
	Excerpt string
}

// ExcerptMax bounds File.Excerpt: a comment holds at most 65,536
// characters, and that many take at most 256 KiB.
const ExcerptMax = 256 << 10

// Open opens the file for reading.
func (f *File) Open() (*os.File, error) {
	fh, err := os.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("open the spooled output: %w", err)
	}
	return fh, nil
}

// WriteTo copies the output to w.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	fh, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	n, err := io.Copy(w, fh)
	if err == nil && n != f.Size {
		err = fmt.Errorf("the spooled output %s has %d bytes, not %d: it was changed", f.Path, n, f.Size)
	}
	return n, err
}

// ReadString reads the whole output into memory. Callers bound how many
// outputs they hold at once.
func (f *File) ReadString() (string, error) {
	b, err := os.ReadFile(f.Path)
	if err != nil {
		return "", fmt.Errorf("read the spooled output: %w", err)
	}
	if int64(len(b)) != f.Size {
		return "", fmt.Errorf("the spooled output %s has %d bytes, not %d: it was changed", f.Path, len(b), f.Size)
	}
	return string(b), nil
}

// Remove deletes the file; a file already gone is no error.
func (f *File) Remove() error {
	if err := os.Remove(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Tail returns the last n bytes of the output (all of it when shorter),
// without a character the cut split at their start.
func (f *File) Tail(n int64) (string, error) {
	fh, err := f.Open()
	if err != nil {
		return "", err
	}
	defer fh.Close()
	b := make([]byte, min(f.Size, max(n, 0)))
	if got, err := fh.ReadAt(b, f.Size-int64(len(b))); got != len(b) {
		if err == nil || errors.Is(err, io.EOF) {
			return "", fmt.Errorf("the spooled output %s has fewer than %d bytes: it was changed", f.Path, f.Size)
		}
		return "", fmt.Errorf("read the spooled output: %w", err)
	}
	if int64(len(b)) < f.Size {
		b = b[Start(b):]
	}
	return string(b), nil
}

// Head returns the first max bytes of s, without a character the cut
// split.
func Head(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[:max]
	end := s[len(s)-min(len(s), utf8.UTFMax-1):] // all Whole looks at
	return s[:len(s)-len(end)+Whole([]byte(end))]
}
