package matrix

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/optr-dev/optr/internal/beneath"
)

// copyBeneath copies rel below dir (see beneath.Open) to dst (parents
// created, dst must not exist) and checks that what it copied hashes to
// want: the file was verified before, and must not have changed since.
func copyBeneath(dir, rel string, limit int64, dst, want string) error {
	in, err := beneath.Open(dir, rel, limit)
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

// hashBeneath returns the hex SHA-256 of rel below dir (see beneath.Open)
// and the number of bytes it hashed.
func hashBeneath(dir, rel string, limit int64) (string, int64, error) {
	f, err := beneath.Open(dir, rel, limit)
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
