//go:build unix

package beneath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A regular file below dir is read; a link (last or on the way), a FIFO,
// a directory, a file over the limit, a missing file and a path that is
// not plain are refused with what they are.
func TestRead(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	write(t, filepath.Join(outside, "secret"), "root:x:0:0")
	write(t, filepath.Join(dir, "sub", "ok.md"), "report")
	write(t, filepath.Join(dir, "big"), strings.Repeat("x", 11))
	for _, l := range [][2]string{{filepath.Join(outside, "secret"), "link"}, {outside, "linked-dir"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(dir, "sub/ok.md", 10); err != nil || string(data) != "report" {
		t.Fatalf("Read(sub/ok.md) = %q, %v", data, err)
	}
	var notRegular *NotRegularError
	var tooLarge *TooLargeError
	for _, tc := range []struct {
		rel  string
		want func(error) bool
		says string
	}{
		{"link", func(err error) bool { return errors.As(err, &notRegular) }, "link is a symbolic link"},
		{"linked-dir/secret", func(err error) bool { return errors.As(err, &notRegular) }, "linked-dir is a symbolic link"},
		{"sub", func(err error) bool { return errors.As(err, &notRegular) }, "sub is not a regular file"},
		{"sub/ok.md/x", func(err error) bool { return errors.As(err, &notRegular) }, "sub/ok.md is not a directory"},
		{"fifo", func(err error) bool { return errors.As(err, &notRegular) }, "fifo is not a regular file"},
		{"big", func(err error) bool { return errors.As(err, &tooLarge) && tooLarge.Size == 11 }, "big is 11 bytes; at most 10 are read"},
		{"missing", func(err error) bool { return errors.Is(err, fs.ErrNotExist) }, "missing"},
		{"../x", func(err error) bool { return err != nil }, "not a plain relative path"},
		{"sub/../sub/ok.md", func(err error) bool { return err != nil }, "not a plain relative path"},
	} {
		data, err := Read(dir, tc.rel, 10)
		if err == nil || !tc.want(err) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Read(%s) = %q, %v; want an error saying %q", tc.rel, data, err, tc.says)
		}
	}
}

// naiveRead is how the report was read before package beneath: a look,
// then an open that follows whatever is there by then.
func naiveRead(dir, rel string) ([]byte, error) {
	p := filepath.Join(dir, rel)
	st, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: rel, What: "not a regular file"}
	}
	if afterLook != nil {
		afterLook(rel)
	}
	return os.ReadFile(p)
}

// The swap lands exactly between the look and the open (afterLook): a link
// to a secret outside the directory, or a FIFO that never gets a writer.
// Read refuses both; the look-then-open read it replaced returns the
// secret, which shows the swap is a real attack. Not parallel: it sets
// the package's hook.
func TestReadRefusesASwapBetweenLookAndOpen(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	write(t, secret, "root:x:0:0")
	for _, swap := range []struct {
		name string
		make func(string) error
	}{
		{"link", func(p string) error { return os.Symlink(secret, p) }},
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
	} {
		dir := t.TempDir()
		target := filepath.Join(dir, "r.md")
		write(t, target, "report")
		afterLook = func(rel string) { // in whichever dir is read
			tmp := filepath.Join(dir, ".tmp")
			if err := swap.make(tmp); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, filepath.Join(dir, rel)); err != nil {
				t.Fatal(err)
			}
		}
		data, err := Read(dir, "r.md", 100)
		var notRegular *NotRegularError
		if !errors.As(err, &notRegular) {
			t.Errorf("%s: Read = %q, %v; want it refused as replaced", swap.name, data, err)
		}
		if swap.name == "link" {
			dir = t.TempDir()
			write(t, filepath.Join(dir, "r.md"), "report")
			if data, err := naiveRead(dir, "r.md"); err != nil || string(data) != "root:x:0:0" {
				t.Errorf("the look-then-open read = %q, %v; want the secret (the swap must be an attack)", data, err)
			}
		}
	}
	afterLook = nil
}

// Another party swaps the file for a link to a secret outside the
// directory, or for a FIFO, over and over, while it is read: every read
// gets the file's own content or an error, never the secret, and none
// blocks.
func TestReadHoldsAgainstASwap(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	write(t, secret, "root:x:0:0")
	target := filepath.Join(dir, "r.md")
	write(t, target, "report")
	var stop atomic.Bool
	swapped := make(chan struct{})
	defer func() {
		stop.Store(true)
		<-swapped
	}()
	go func() {
		defer close(swapped)
		tmp := filepath.Join(dir, ".tmp")
		for i := 0; !stop.Load(); i++ {
			var err error
			switch i % 3 {
			case 0:
				err = os.Symlink(secret, tmp)
			case 1:
				err = syscall.Mkfifo(tmp, 0o644)
			default:
				err = os.WriteFile(tmp, []byte("report"), 0o644)
			}
			if err == nil {
				err = os.Rename(tmp, target)
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	reads := 0
	for range 10000 {
		data, err := Read(dir, "r.md", 100)
		if strings.Contains(string(data), "root") {
			t.Fatalf("read %q: the secret behind a swapped-in link", data)
		}
		if err == nil {
			if string(data) != "report" {
				t.Fatalf("read %q, want the report", data)
			}
			reads++
		}
	}
	t.Logf("%d of 10000 reads got the report", reads)
}
