package action

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/action/actiontest"
)

// readOutputs reads the outputs file at path as the runner does.
func readOutputs(t *testing.T, path string) []Output {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := actiontest.ParseOutputs(string(b))
	if err != nil {
		t.Fatalf("the runner would fail on the outputs file: %v\n%s", err, b)
	}
	var got []Output
	for _, o := range parsed {
		got = append(got, Output{Name: o.Name, Value: o.Value})
	}
	return got
}

func TestOutputsRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "output")
	if err := os.WriteFile(path, []byte("earlier=kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := NewOutputs(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Output{
		{"status", "completed"},
		{"run-id", "1658821493-1"},
		{"result-file", ".optr/workflows/issue-1/runs/1658821493-1/result.md"},
		{"empty", ""},
		{"multi_line", "first\n\nthird\n"},
	}
	for _, out := range want {
		if err := o.Set(out.Name, out.Value); err != nil {
			t.Fatalf("Set(%q): %v", out.Name, err)
		}
	}
	if diff := cmp.Diff(append([]Output{{"earlier", "kept"}}, want...), readOutputs(t, path)); diff != "" {
		t.Errorf("outputs as the runner reads them (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, o.Values()); diff != "" {
		t.Errorf("Values mismatch (-want +got):\n%s", diff)
	}
}

// TestOutputsInjection writes values an attacker controls (an agent's
// output, an issue title) and checks that the runner still sees exactly the
// outputs that were set.
func TestOutputsInjection(t *testing.T) {
	t.Parallel()
	hostile := []string{
		"x\nghadelimiter_x\nevil=1",
		"ghadelimiter_00000000000000000000000000000000\nstatus<<EOF\nhacked\nEOF",
		"::set-output name=evil::1\n::stop-commands::x",
		"line\nselected-agent=mallory\n",
		"EOF\nEOF\n<<\n=\n",
		"ends with CR\r",
		"\n\n\n",
	}
	for i, value := range hostile {
		path := filepath.Join(t.TempDir(), "output")
		o, err := NewOutputs(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Set("status", value); err != nil {
			t.Fatalf("value %d: Set: %v", i, err)
		}
		if err := o.Set("run-id", "1-1"); err != nil {
			t.Fatal(err)
		}
		want := []Output{{"status", value}, {"run-id", "1-1"}}
		if diff := cmp.Diff(want, readOutputs(t, path)); diff != "" {
			t.Errorf("value %d %q changed the outputs (-want +got):\n%s", i, value, diff)
		}
	}
}

func TestOutputsRefuseTheDelimiter(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "output")
	o, err := NewOutputs(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(o.delim, "ghadelimiter_") || len(o.delim) != len("ghadelimiter_")+32 {
		t.Fatalf("delimiter %q", o.delim)
	}
	other, err := NewOutputs(path)
	if err != nil {
		t.Fatal(err)
	}
	if other.delim == o.delim {
		t.Fatal("two Outputs drew the same delimiter")
	}
	for _, v := range []string{o.delim, "a\n" + o.delim + "\nevil=1", "prefix" + o.delim} {
		if err := o.Set("status", v); err == nil {
			t.Errorf("Set accepted a value containing the delimiter: %q", v)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a refused value touched the file: %v", err)
	}
	if len(o.Values()) != 0 {
		t.Errorf("refused values recorded: %v", o.Values())
	}
}

func TestOutputsNames(t *testing.T) {
	t.Parallel()
	o, err := NewOutputs(filepath.Join(t.TempDir(), "output"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"status", "run-id", "_x", "A9_-"} {
		if err := o.Set(name, "v"); err != nil {
			t.Errorf("Set(%q): %v", name, err)
		}
	}
	for _, name := range []string{"", "1x", "-x", "a=b", "a<<b", "a b", "ä", "a\nb", "x::y"} {
		if err := o.Set(name, "v"); err == nil {
			t.Errorf("Set accepted the name %q", name)
		}
	}
}

func TestOutputsWithoutFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o, err := NewOutputs("")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Set("status", "skipped"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Output{{"status", "skipped"}}, o.Values()); diff != "" {
		t.Errorf("Values mismatch (-want +got):\n%s", diff)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}

func TestOutputsWriteError(t *testing.T) {
	t.Parallel()
	o, err := NewOutputs(filepath.Join(t.TempDir(), "missing-dir", "output"))
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Set("status", "x"); err == nil || !strings.Contains(err.Error(), "write output status to GITHUB_OUTPUT") {
		t.Fatalf("Set = %v, want a write error", err)
	}
}

func TestOutputsConcurrent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "output")
	o, err := NewOutputs(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if err := o.Set(fmt.Sprintf("o%d", i), strings.Repeat("line\n", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got := readOutputs(t, path)
	if len(got) != 50 {
		t.Fatalf("the runner sees %d outputs, want 50", len(got))
	}
	for _, out := range got {
		var i int
		if _, err := fmt.Sscanf(out.Name, "o%d", &i); err != nil || out.Value != strings.Repeat("line\n", i) {
			t.Errorf("output %q = %q", out.Name, out.Value)
		}
	}
}
