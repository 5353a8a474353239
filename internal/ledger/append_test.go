package ledger

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAppendCreatesAndChains(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "datalake", "nested", "ledger.jsonl")
	first, err := Append(path, runDraft("1-1", 0), runDraft("2-1", 1))
	if err != nil {
		t.Fatal(err)
	}
	second, err := Append(path, runDraft("3-1", 2))
	if err != nil {
		t.Fatal(err)
	}
	all := append(first, second...)
	if second[0].Seq != 3 || second[0].Prev != first[1].Hash {
		t.Errorf("second append seq %d prev %s, want seq 3 after %s", second[0].Seq, second[0].Prev, first[1].Hash)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(linesOf(t, all)), string(data)); diff != "" {
		t.Errorf("file content (-want +got):\n%s", diff)
	}
	s, err := VerifyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Summary{Entries: 3, Head: all[2].Head()}, s); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	head, err := TailHead(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(all[2].Head(), head); diff != "" {
		t.Errorf("TailHead (-want +got):\n%s", diff)
	}
}

func TestAppendNothing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	if got, err := Append(path); err != nil || got != nil {
		t.Fatalf("Append() = %v, %v; want nothing", got, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("Append() touched the file: %v", err)
	}
}

// TestAppendRefusesBadTail checks that Append writes nothing onto a ledger
// whose last line is torn or bad, and names the line and the repair.
func TestAppendRefusesBadTail(t *testing.T) {
	t.Parallel()
	golden := readTestdata(t, "golden.jsonl")
	lines := splitLines(golden)
	tests := []struct {
		name    string
		content []byte
		line    int64
		problem Problem
	}{
		{"garbage last line", append(bytes.Clone(golden), "junk\n"...), 7, ProblemNotJSON},
		{"empty last line", append(bytes.Clone(golden), '\n'), 7, ProblemNotJSON},
		{"tampered last line", append(bytes.Join(lines[:5], nil), bytes.Replace(lines[5], []byte(`"note"`), []byte(`"nope"`), 1)...), 6, ProblemHash},
		{"non-canonical last line", append(bytes.Join(lines[:5], nil), bytes.Replace(lines[5], []byte(`"kind":`), []byte(`"kind": `), 1)...), 6, ProblemNotCanonical},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "ledger.jsonl")
			if err := os.WriteFile(path, tt.content, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Append(path, runDraft("9-1", 9))
			if err == nil {
				t.Fatal("Append succeeded on a bad tail")
			}
			verr := asVerifyError(t, err)
			if verr.Line != tt.line || verr.Problem != tt.problem {
				t.Errorf("got line %d %s, want line %d %s (%v)", verr.Line, verr.Problem, tt.line, tt.problem, err)
			}
			for _, want := range []string{"refusing to append: " + fmt.Sprintf("the last line (%d) is", tt.line), "optr ledger verify --ledger " + path} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(after, tt.content) {
				t.Errorf("Append changed the file")
			}
			if _, err := TailHead(path); err == nil {
				t.Errorf("TailHead accepted the bad tail")
			}
		})
	}
}

// TestAppendReadsOnlyTheTail shows that Append does not read the body of
// the ledger: a corrupted first line outside the tail window goes
// unnoticed (Verify's job), while appending works from the intact tail.
func TestAppendReadsOnlyTheTail(t *testing.T) {
	t.Parallel()
	var big bytes.Buffer
	head, err := WriteSynthetic(&big, 200) // well past the 64 KiB window
	if err != nil {
		t.Fatal(err)
	}
	if big.Len() < 2*tailWindow {
		t.Fatalf("the synthetic ledger is %d bytes, too small for this test", big.Len())
	}
	corrupt := bytes.Replace(big.Bytes(), []byte(`"selected":"`), []byte(`"selected":"X`), 1)
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := os.WriteFile(path, corrupt, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Append(path, runDraft("9-1", 9))
	if err != nil {
		t.Fatalf("Append read more than the tail: %v", err)
	}
	if got[0].Seq != head.Seq+1 {
		t.Errorf("appended seq %d, want %d", got[0].Seq, head.Seq+1)
	}
	_, err = VerifyFile(path)
	if verr := asVerifyError(t, err); verr.Line != 1 {
		t.Errorf("VerifyFile: %v, want line 1", err)
	}
}

func TestAppendRefusesBadDraftAndWritesNothing(t *testing.T) {
	t.Parallel()
	golden := readTestdata(t, "golden.jsonl")
	for name, d := range map[string]Draft{
		"common member": {Kind: "k", Run: "r", Time: testEpoch, Fields: map[string]any{"prev": "x"}},
		"unsafe number": {Kind: "k", Run: "r", Time: testEpoch, Fields: map[string]any{"n": int64(1) << 60}},
		"no time":       {Kind: "k", Run: "r"},
	} {
		path := filepath.Join(t.TempDir(), "ledger.jsonl")
		if err := os.WriteFile(path, golden, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Append(path, runDraft("9-1", 9), d); err == nil {
			t.Errorf("%s: Append succeeded", name)
		}
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(after, golden) {
			t.Errorf("%s: Append changed the file", name)
		}
	}
}

func TestTailHeadMissingFile(t *testing.T) {
	t.Parallel()
	head, err := TailHead(filepath.Join(t.TempDir(), "none.jsonl"))
	if err != nil || head != (Head{}) {
		t.Errorf("TailHead = %+v, %v; want the zero head", head, err)
	}
}

func TestTailHeadLongLastLine(t *testing.T) {
	t.Parallel()
	// A last line much longer than TailHead's first read window.
	big := Draft{Kind: "note", Run: "r", Time: testEpoch, Fields: map[string]any{"blob": strings.Repeat("x", 300<<10)}}
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	entries, err := Append(path, runDraft("1-1", 0), big)
	if err != nil {
		t.Fatal(err)
	}
	head, err := TailHead(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(entries[1].Head(), head); diff != "" {
		t.Errorf("TailHead (-want +got):\n%s", diff)
	}
}

// TestAppendConcurrent appends from goroutines of this process and from
// two other processes at once; the result must be one valid chain holding
// every entry, each writer's entries in its own order.
func TestAppendConcurrent(t *testing.T) {
	t.Parallel()
	const perWriter = 25
	path := filepath.Join(t.TempDir(), "ledger.jsonl")

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for p := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), helperEnv+"=append", "OPTR_LEDGER_PATH="+path,
				fmt.Sprintf("OPTR_LEDGER_RUN=proc-%d", p), fmt.Sprintf("OPTR_LEDGER_COUNT=%d", perWriter))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("process %d: %v: %s", p, err, out)
			}
		}()
	}
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := helperAppend(path, fmt.Sprintf("goroutine-%d", g), fmt.Sprint(perWriter)); err != nil {
				errs <- fmt.Errorf("goroutine %d: %w", g, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	s, err := VerifyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Entries != 6*perWriter {
		t.Errorf("%d entries, want %d", s.Entries, 6*perWriter)
	}
	next := map[string]int{}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = Scan(f, func(e Entry) error {
		i := fmt.Sprint(e.Fields["i"])
		if want := fmt.Sprint(next[e.Run]); i != want {
			return fmt.Errorf("writer %s: entry %s, want %s", e.Run, i, want)
		}
		next[e.Run]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(next) != 6 {
		t.Errorf("entries from %d writers, want 6: %v", len(next), next)
	}
}

func TestAppendRefusesOverlongLastLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	content := append(bytes.Repeat([]byte("x"), MaxLineSize+10), '\n')
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Append(path, runDraft("1-1", 0))
	if verr := asVerifyError(t, err); verr.Problem != ProblemTooLong {
		t.Fatalf("Append: %v, want a too-long last line", err)
	}
	if !strings.Contains(err.Error(), "refusing to append: the last line is bad: it is longer than") {
		t.Errorf("error %q does not explain the line", err)
	}
}
