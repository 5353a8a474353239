package gitdata

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strings"
)

// ValidPath reports whether p is a clean, slash-separated,
// repository-relative path outside .git: what a tree entry may name.
func ValidPath(p string) bool {
	return fs.ValidPath(p) && p != "." && p != ".git" && !strings.HasPrefix(p, ".git/") && !strings.Contains(p, "\\")
}

// BlobSHA is the sha git gives a blob with content.
func BlobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}
