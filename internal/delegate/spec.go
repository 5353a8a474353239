package delegate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DirSpecs is the folder of the datalake that holds the spec folders.
const DirSpecs = "specs"

// DirReports is the folder of a spec folder that holds the reports.
const DirReports = "reports"

// maxClaimTries bounds the numbers Claim tries before it gives up: each
// failed try means another run took that number meanwhile.
const maxClaimTries = 1000

// Claim creates a new spec folder <root>/specs/NNN_<slug>/ with its
// reports/ folder and returns its path. NNN is one more than the highest
// number in use, zero-padded to three digits. Two runs, in this process or
// others, never get the same NNN, even with different slugs: the number is
// claimed first with an exclusive create of specs/.claim-NNN, then, while
// the claim is held, the folder is created only if no NNN_* folder exists;
// the claim is released once the folder exists.
func Claim(root, slug string) (string, error) {
	if slug == "" || strings.ContainsAny(slug, `/\`) || slug == "." || slug == ".." {
		return "", fmt.Errorf("spec folder name %q is not a slug", slug)
	}
	specs := filepath.Join(root, DirSpecs)
	if err := os.MkdirAll(specs, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", specs, err)
	}
	n, err := highest(specs)
	if err != nil {
		return "", err
	}
	for range maxClaimTries {
		n++
		dir, ok, err := claimNumber(specs, n, slug)
		if err != nil {
			return "", err
		}
		if ok {
			return dir, nil
		}
	}
	return "", fmt.Errorf("no free spec folder number in %s after %d tries; remove stale .claim-* folders there", specs, maxClaimTries)
}

// claimNumber tries to take number n for slug.
func claimNumber(specs string, n int, slug string) (string, bool, error) {
	num := fmt.Sprintf("%03d", n)
	claim := filepath.Join(specs, ".claim-"+num)
	if err := os.Mkdir(claim, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", false, nil // another run holds it, or crashed holding it
		}
		return "", false, fmt.Errorf("claim spec number %s: %w", num, err)
	}
	defer os.Remove(claim)
	taken, err := numberTaken(specs, n)
	if err != nil || taken {
		return "", false, err
	}
	dir := filepath.Join(specs, num+"_"+slug)
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("create spec folder: %w", err)
	}
	if err := os.Mkdir(filepath.Join(dir, DirReports), 0o755); err != nil {
		return "", false, fmt.Errorf("create spec folder: %w", err)
	}
	return dir, true, nil
}

// highest returns the highest NNN of the spec folders in specs (0 if none).
func highest(specs string) (int, error) {
	entries, err := os.ReadDir(specs)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", specs, err)
	}
	top := 0
	for _, e := range entries {
		if n, ok := specNumber(e.Name()); ok && e.IsDir() {
			top = max(top, n)
		}
	}
	return top, nil
}

// numberTaken reports whether a spec folder numbered n exists.
func numberTaken(specs string, n int) (bool, error) {
	entries, err := os.ReadDir(specs)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", specs, err)
	}
	for _, e := range entries {
		if m, ok := specNumber(e.Name()); ok && m == n {
			return true, nil
		}
	}
	return false, nil
}

// specNumber reads NNN from a folder name NNN_<slug>.
func specNumber(name string) (int, bool) {
	digits, _, ok := strings.Cut(name, "_")
	if !ok || len(digits) < 3 {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 || strings.HasPrefix(digits, "+") {
		return 0, false
	}
	return n, true
}
