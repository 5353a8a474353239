package gitdatatest

import (
	"testing"
)

func TestRepoIsAStore(t *testing.T) {
	t.Parallel()
	TestStore(t, func(*testing.T) Seeded { return New() }, func(*testing.T) Seeded { return New(Empty()) })
}
