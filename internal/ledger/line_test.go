package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

// timeSeeds are times at the edges of plainUTCTime's shape.
var timeSeeds = []string{
	"2026-01-12T13:31:21Z", "2026-01-12T13:31:21.395Z", "2026-01-12T13:31:21.123456789Z", "2026-01-12T13:31:21.1234567891Z",
	"2026-01-12T13:31:21.Z", "2026-01-12t13:31:21Z", "2026-01-12T13:31:21+00:00", "2026-01-12 13:31:21Z",
	"2024-02-29T00:00:00Z", "2025-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
	"2026-00-10T00:00:00Z", "2026-13-10T00:00:00Z", "2026-12-00T00:00:00Z", "2026-12-31T24:00:00Z", "2026-12-31T23:60:00Z",
	"2026-12-31T23:59:60Z", "2026-12-31T23:59:59Z", "0000-01-01T00:00:000", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "2026-1-12T13:31:21Z",
}

// FuzzPlainUTCTime holds plainUTCTime to time.Parse: a time it takes,
// time.Parse takes.
func FuzzPlainUTCTime(f *testing.F) {
	for _, s := range timeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !plainUTCTime([]byte(s)) {
			return
		}
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			t.Fatalf("plainUTCTime(%q) = true, time.Parse says %v", s, err)
		}
	})
}

// TestPlainUTCTime: the times Append writes take the fast path, and
// isUTCTime answers as time.Parse does either way.
func TestPlainUTCTime(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"2026-01-12T13:31:21Z", "2026-01-12T13:31:21.395Z", "2024-02-29T23:59:59.5Z",
		time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC).Format(time.RFC3339Nano)} {
		if !plainUTCTime([]byte(s)) {
			t.Errorf("plainUTCTime(%q) = false, want true", s)
		}
	}
	for _, s := range timeSeeds {
		_, err := time.Parse(time.RFC3339Nano, s)
		if got, want := isUTCTime([]byte(s)), err == nil && strings.HasSuffix(s, "Z"); got != want {
			t.Errorf("isUTCTime(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestHashMatches: hashMatches is the comparison of the hash's hex form,
// bytewise.
func TestHashMatches(t *testing.T) {
	t.Parallel()
	sum := sha256.Sum256([]byte("a line"))
	good := []byte(hex.EncodeToString(sum[:]))
	if !hashMatches(&sum, good) {
		t.Fatalf("hashMatches(%x, %s) = false", sum, good)
	}
	for i := range good {
		for _, c := range []byte{'0', 'f', 'F', 'g', good[i] ^ 0x20, good[i] + 1} {
			bad := bytes.Clone(good)
			bad[i] = c
			if want := bytes.Equal(bad, good); hashMatches(&sum, bad) != want {
				t.Errorf("hashMatches(%x, %s) = %v, want %v", sum, bad, !want, want)
			}
		}
	}
	for _, bad := range [][]byte{nil, good[:63], append(bytes.Clone(good), '0'), bytes.ToUpper(good)} {
		if hashMatches(&sum, bad) && !bytes.Equal(bad, good) {
			t.Errorf("hashMatches(%x, %q) = true", sum, bad)
		}
	}
}
