package matrix

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// openBeneath opens the regular file rel (slash-separated) below the
// folder dir, an artifact a matrix job uploaded, without following a
// symbolic link in any component: a task's command checks run code its
// agent wrote, and what they leave running can turn files/x into a link
// to /etc before the upload. Every component is looked at with Lstat
// through an os.Root (which also keeps a link swapped in between the look
// and the open from leading outside dir), and the file opened must be the
// one looked at. A link, a non-directory on the way, or anything but a
// regular file of at most limit bytes is refused, naming rel.
func openBeneath(dir, rel string, limit int64) (*os.File, error) {
	if rel == "" || strings.Contains(rel, `\`) || !filepath.IsLocal(filepath.FromSlash(rel)) || path.Clean(rel) != rel {
		return nil, errors.New("not a plain relative path")
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	parts := strings.Split(rel, "/")
	var last fs.FileInfo
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := root.Lstat(p)
		if err != nil {
			return nil, err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return nil, fmt.Errorf("%s is a symbolic link", p)
		case i < len(parts)-1 && !fi.IsDir():
			return nil, fmt.Errorf("%s is not a directory", p)
		}
		last = fi
	}
	if !last.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	if last.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes; at most %d are read", rel, last.Size(), limit)
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, last) {
		f.Close()
		return nil, fmt.Errorf("%s was replaced while it was read", rel)
	}
	return f, nil
}

// readBeneath reads rel below dir (see openBeneath), refusing more than
// limit bytes also when the file grows meanwhile.
func readBeneath(dir, rel string, limit int64) ([]byte, error) {
	f, err := openBeneath(dir, rel, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s grew past %d bytes while it was read", rel, limit)
	}
	return data, nil
}

// copyBeneath copies rel below dir (see openBeneath) to dst (parents
// created, dst must not exist) and checks that what it copied hashes to
// want: the file was verified before, and must not have changed since.
func copyBeneath(dir, rel string, limit int64, dst, want string) error {
	in, err := openBeneath(dir, rel, limit)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(out, h), io.LimitReader(in, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && hex.EncodeToString(h.Sum(nil)) != want {
		err = fmt.Errorf("tampered: %s changed after it was verified", rel)
	}
	if err != nil {
		os.Remove(dst)
	}
	return err
}

// hashBeneath returns the hex SHA-256 of rel below dir (see openBeneath)
// and the number of bytes it hashed.
func hashBeneath(dir, rel string, limit int64) (string, int64, error) {
	f, err := openBeneath(dir, rel, limit)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, limit+1))
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
