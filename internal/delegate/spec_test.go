package delegate

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestClaimNumbersAfterTheHighest(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"001_a", "007_b", "notes", "12_short"} {
		if err := os.MkdirAll(filepath.Join(root, "specs", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := Claim(root, "research")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "specs", "008_research"); dir != want {
		t.Fatalf("Claim = %s, want %s", dir, want)
	}
	if st, err := os.Stat(filepath.Join(dir, "reports")); err != nil || !st.IsDir() {
		t.Fatalf("reports/ missing: %v", err)
	}
	if _, err := Claim(root, "../x"); err == nil {
		t.Fatal("a slug with a slash was accepted")
	}
}

// TestClaimConcurrentRunsNeverShareANumber claims from many goroutines at
// once, with different and equal slugs: every number is taken once.
func TestClaimConcurrentRunsNeverShareANumber(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	const n = 24
	var wg sync.WaitGroup
	dirs := make([]string, n)
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			slug := []string{"alpha", "beta", "gamma"}[i%3]
			dirs[i], errs[i] = Claim(root, slug)
		})
	}
	close(start)
	wg.Wait()
	seen := map[int]string{}
	for i, d := range dirs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		num, ok := specNumber(filepath.Base(d))
		if !ok {
			t.Fatalf("%s has no number", d)
		}
		if other, dup := seen[num]; dup {
			t.Fatalf("%s and %s share number %03d", other, d, num)
		}
		seen[num] = d
	}
	for k := 1; k <= n; k++ {
		if _, ok := seen[k]; !ok {
			t.Errorf("number %03d was skipped", k)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(root, "specs"))
	if len(entries) != n {
		t.Errorf("specs/ holds %d entries, want %d (claims must be released)", len(entries), n)
	}
}
