package matrix

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// downloaded lays the task folders in out as actions/download-artifact
// does: merge-multiple puts every optr-task-<id>/ straight below dest;
// without it each artifact gets a folder of its name holding its files.
func downloaded(t *testing.T, out string, merge bool) string {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "optr-tasks")
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		target := filepath.Join(dest, e.Name())
		if !merge {
			target = filepath.Join(dest, e.Name(), e.Name())
		}
		if err := os.CopyFS(target, os.DirFS(filepath.Join(out, e.Name()))); err != nil {
			t.Fatal(err)
		}
	}
	return dest
}

func TestGatherBothLayouts(t *testing.T) {
	t.Parallel()
	plan, ws := newPlan(t, parseConfig(t, demoConfig))
	out := filepath.Join(ws, "optr-tasks")
	runTasks(t, plan, ws, out)
	for _, merge := range []bool{true, false} {
		g, err := Gather(t.Context(), plan, downloaded(t, out, merge))
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Refused) > 0 || len(g.Missing) > 0 {
			t.Fatalf("merge=%t: refused %v, missing %v", merge, g.Refused, g.Missing)
		}
		var got []string
		for _, r := range g.Results {
			got = append(got, r.Agent+":"+string(r.Status)+":"+strings.Join(r.Checks.Invariants, "+"))
		}
		want := []string{"good:succeeded:no-todo+short", "sloppy:succeeded:short", "broken:escalated:"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("merge=%t: results (-want +got):\n%s", merge, diff)
		}
		if g.Results[0].Output != "# Answer\n\nAll good.\n" || g.Results[1].Checks.Admissible {
			t.Errorf("merge=%t: output %q, sloppy admissible %t", merge, g.Results[0].Output, g.Results[1].Checks.Admissible)
		}
	}
}

func TestGatherRefuses(t *testing.T) {
	t.Parallel()
	plan, ws := newPlan(t, parseConfig(t, demoConfig))
	out := filepath.Join(ws, "optr-tasks")
	runTasks(t, plan, ws, out)

	editResult := func(id string, edit func(m map[string]any)) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			path := filepath.Join(dir, TaskDirName(id), ResultFile)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			edit(m)
			data, _ = json.Marshal(m)
			writeFile(t, path, string(data))
		}
	}
	tests := []struct {
		name    string
		change  func(t *testing.T, dir string)
		refused []string // task: reason fragment
		missing []string
		failed  []string // the tasks counted as failed
	}{
		{
			name: "tampered output",
			change: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "optr-task-sloppy", OutputFile), "# All good\n")
			},
			refused: []string{"sloppy: tampered: output.md hashes to"},
			failed:  []string{"sloppy"},
		},
		{
			name: "tampered agent file",
			change: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "optr-task-good", FilesDir, "good", "notes.md"), "changed\n")
			},
			refused: []string{"good: tampered: agent file good/notes.md hashes to"},
			failed:  []string{"good"},
		},
		{
			name: "agent file outside the task",
			change: editResult("good", func(m map[string]any) {
				m["files"] = map[string]any{"../../etc/passwd": strings.Repeat("0", 64)}
			}),
			refused: []string{`good: tampered: agent file "../../etc/passwd": not a plain relative path`},
			failed:  []string{"good"},
		},
		{
			name:    "foreign run",
			change:  editResult("good", func(m map[string]any) { m["run_id"] = "r0" }),
			refused: []string{`good: foreign: run_id "r0"`},
			failed:  []string{"good"},
		},
		{
			name:    "foreign intent",
			change:  editResult("good", func(m map[string]any) { m["intent_sha256"] = strings.Repeat("0", 64) }),
			refused: []string{"good: foreign: intent_sha256"},
			failed:  []string{"good"},
		},
		{
			name:    "foreign config",
			change:  editResult("good", func(m map[string]any) { m["config_sha256"] = strings.Repeat("0", 64) }),
			refused: []string{"good: foreign: config_sha256"},
			failed:  []string{"good"},
		},
		{
			name:    "admissibility forged",
			change:  editResult("sloppy", func(m map[string]any) { m["checks"].(map[string]any)["verdicts"] = []any{} }),
			refused: []string{"sloppy: tampered: checked constraints []"},
			failed:  []string{"sloppy"},
		},
		{
			name: "result moved to another task's folder",
			change: func(t *testing.T, dir string) {
				good := filepath.Join(dir, "optr-task-good")
				sloppy := filepath.Join(dir, "optr-task-sloppy")
				if err := os.RemoveAll(sloppy); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(good, sloppy); err != nil {
					t.Fatal(err)
				}
			},
			refused: []string{`sloppy: tampered: the result is task "good"'s`},
			missing: []string{"good"},
			failed:  []string{"good", "sloppy"},
		},
		{
			name: "duplicate",
			change: func(t *testing.T, dir string) {
				if err := os.CopyFS(filepath.Join(dir, "again", "optr-task-good"), os.DirFS(filepath.Join(dir, "optr-task-good"))); err != nil {
					t.Fatal(err)
				}
			},
			refused: []string{"good: 2 results for one task", "good: 2 results for one task"},
			failed:  []string{"good"},
		},
		{
			name: "unknown task",
			change: func(t *testing.T, dir string) {
				if err := os.CopyFS(filepath.Join(dir, "optr-task-ghost"), os.DirFS(filepath.Join(dir, "optr-task-good"))); err != nil {
					t.Fatal(err)
				}
			},
			refused: []string{`ghost: task "ghost" is not in the plan`},
		},
		{
			name:    "missing",
			change:  func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, "optr-task-good")) },
			missing: []string{"good"},
			failed:  []string{"good"},
		},
		{
			name: "result is a link",
			change: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "optr-task-good", ResultFile)
				other := filepath.Join(dir, "elsewhere.json")
				if err := os.Rename(p, other); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(other, p); err != nil {
					t.Fatal(err)
				}
			},
			refused: []string{"good: unreadable: result.json is a symbolic link"},
			failed:  []string{"good"},
		},
		{
			// Issue 27 item 4: only the last component was checked, so a
			// linked directory in files/ committed /etc/passwd.
			name: "agent file below a linked directory",
			change: func(t *testing.T, dir string) {
				outside := t.TempDir()
				writeFile(t, filepath.Join(outside, "secret.txt"), "root:x:0:0\n")
				if err := os.Symlink(outside, filepath.Join(dir, "optr-task-good", FilesDir, "evil")); err != nil {
					t.Fatal(err)
				}
				editResult("good", func(m map[string]any) {
					m["files"].(map[string]any)["evil/secret.txt"] = executor.SHA256Hex("root:x:0:0\n")
				})(t, dir)
			},
			refused: []string{`good: tampered: agent file "evil/secret.txt": evil is a symbolic link`},
			failed:  []string{"good"},
		},
		{
			// A task's run keeps datalake.MaxAgentFiles agent files: a
			// result listing more is refused before any is hashed.
			name: "more agent files than a run keeps",
			change: editResult("good", func(m map[string]any) {
				files := map[string]any{}
				for i := range datalake.MaxAgentFiles + 1 {
					files[fmt.Sprintf("f%d", i)] = strings.Repeat("0", 64)
				}
				m["files"] = files
			}),
			refused: []string{fmt.Sprintf("good: tampered: the result lists %d agent files", datalake.MaxAgentFiles+1)},
			failed:  []string{"good"},
		},
		{
			// ... and datalake.MaxAgentBytes: five files of 60 MiB (sparse
			// here), each within MaxAgentFile, with their true hashes.
			name: "more agent bytes than a run keeps",
			change: func(t *testing.T, dir string) {
				const size = 60 << 20
				sum := sha256.New()
				if _, err := io.Copy(sum, io.LimitReader(zeros{}, size)); err != nil {
					t.Fatal(err)
				}
				files := map[string]any{}
				for i := range 5 {
					name := fmt.Sprintf("big%d", i)
					f, err := os.Create(filepath.Join(dir, "optr-task-good", FilesDir, name))
					if err != nil {
						t.Fatal(err)
					}
					if err := errors.Join(f.Truncate(size), f.Close()); err != nil {
						t.Fatal(err)
					}
					files[name] = hex.EncodeToString(sum.Sum(nil))
				}
				editResult("good", func(m map[string]any) { m["files"] = files })(t, dir)
			},
			refused: []string{fmt.Sprintf("good: tampered: the agent files hold more than %d bytes by big4", datalake.MaxAgentBytes)},
			failed:  []string{"good"},
		},
		{
			name: "output is a link",
			change: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "optr-task-sloppy", OutputFile)
				other := filepath.Join(t.TempDir(), "output.md")
				if err := os.Rename(p, other); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(other, p); err != nil {
					t.Fatal(err)
				}
			},
			refused: []string{"sloppy: unreadable output: output.md is a symbolic link"},
			failed:  []string{"sloppy"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := downloaded(t, out, true)
			tt.change(t, dir)
			g, err := Gather(t.Context(), plan, dir)
			if err != nil {
				t.Fatal(err)
			}
			var refused []string
			for _, r := range g.Refused {
				refused = append(refused, r.Task+": "+r.Reason)
			}
			if len(refused) != len(tt.refused) {
				t.Fatalf("refused %q, want %q", refused, tt.refused)
			}
			for i, want := range tt.refused {
				if !strings.HasPrefix(refused[i], want) {
					t.Errorf("refusal %d = %q, want it to start %q", i, refused[i], want)
				}
			}
			if diff := cmp.Diff(tt.missing, g.Missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
			if len(g.Results) != len(plan.Tasks) {
				t.Fatalf("%d results for %d tasks", len(g.Results), len(plan.Tasks))
			}
			for _, r := range g.Results {
				isFailed := r.Status == status.Failed && r.Output == "" && strings.Contains(r.Error, "result")
				if want := slices.Contains(tt.failed, r.Agent); isFailed != want {
					t.Errorf("%s: status %s, output %q, error %q; want failed=%t", r.Agent, r.Status, r.Output, r.Error, want)
				}
				// What a task without a usable result spent is not known:
				// unknown, never 0.
				if isFailed && (!r.Usage.IsUnknown() || r.Spent == nil || !r.Spent.Usage.IsUnknown()) {
					t.Errorf("%s: usage %+v, spent %+v; want both unknown", r.Agent, r.Usage, r.Spent)
				}
			}
		})
	}
}

func TestGatherMissingFolderIsNoResults(t *testing.T) {
	t.Parallel()
	plan, ws := newPlan(t, parseConfig(t, demoConfig))
	g, err := Gather(t.Context(), plan, filepath.Join(ws, "nothing-downloaded"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Missing, []string{"good", "sloppy", "broken"}) {
		t.Errorf("missing = %v, want every task", g.Missing)
	}
	for _, r := range g.Results {
		if !r.Usage.IsUnknown() || r.Spent == nil || !r.Spent.Usage.IsUnknown() {
			t.Errorf("%s left no result: usage %+v, spent %+v; want both unknown, never 0", r.Agent, r.Usage, r.Spent)
		}
	}
}

func TestRunTaskUnknown(t *testing.T) {
	t.Parallel()
	plan, ws := newPlan(t, parseConfig(t, demoConfig))
	_, err := RunTask(t.Context(), plan, "ghost", testDeps(), ws, filepath.Join(ws, "out"))
	if err == nil || !strings.Contains(err.Error(), `task "ghost" is not in the plan (tasks: [good sloppy broken])`) {
		t.Fatalf("RunTask error = %v", err)
	}
}

// zeros reads as endless zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// The tasks' agent files together are kept to a run's bounds, as one
// job's run keeps its agents' files: in plan order, then path order, up
// to datalake.MaxAgentFiles files and MaxAgentBytes; every file after the
// first past either bound is refused, with one refusal per task.
func TestGatherKeepsAgentFilesToTheRunsBounds(t *testing.T) {
	t.Parallel()
	files := func(task string, n int, size int64) []agentFile {
		var fs []agentFile
		for i := range n {
			fs = append(fs, agentFile{rel: fmt.Sprintf("%s-%05d", task, i), taskDir: task, size: size})
		}
		return fs
	}
	g := &Gathered{}
	g.addFiles("a", files("a", datalake.MaxAgentFiles-2, 1))
	g.addFiles("b", files("b", 5, 1))
	g.addFiles("c", files("c", 1, 1))
	if len(g.files) != datalake.MaxAgentFiles || g.files[len(g.files)-1].rel != "b-00001" {
		t.Errorf("kept %d files, the last %s; want %d, the last b-00001", len(g.files), g.files[len(g.files)-1].rel, datalake.MaxAgentFiles)
	}
	if len(g.Refused) != 2 || g.Refused[0].Task != "b" || !strings.HasPrefix(g.Refused[0].Reason, "3 agent files of the task") ||
		g.Refused[1].Task != "c" || !strings.HasPrefix(g.Refused[1].Reason, "1 agent files") {
		t.Errorf("refused %v, want 3 of b's and c's 1", g.Refused)
	}

	g = &Gathered{}
	g.addFiles("a", []agentFile{{rel: "whole", taskDir: "a", size: datalake.MaxAgentBytes - 10}})
	g.addFiles("b", []agentFile{{rel: "big", taskDir: "b", size: 11}, {rel: "small", taskDir: "b", size: 1}})
	if len(g.files) != 1 || len(g.Refused) != 1 || !strings.HasPrefix(g.Refused[0].Reason, "2 agent files") {
		t.Errorf("kept %v, refused %v; want only a's file, and both of b's refused", g.files, g.Refused)
	}
}

func TestGatherKeepsTheFirstOfClashingAgentFiles(t *testing.T) {
	t.Parallel()
	g := &Gathered{}
	g.addFiles("a", []agentFile{{rel: "x.md", taskDir: "a"}, {rel: "a.md", taskDir: "a"}})
	g.addFiles("b", []agentFile{{rel: "x.md", taskDir: "b"}, {rel: "b.md", taskDir: "b"}})
	var kept []string
	for _, f := range g.files {
		kept = append(kept, f.taskDir+"/"+f.rel)
	}
	if diff := cmp.Diff([]string{"a/a.md", "a/x.md", "b/b.md"}, kept); diff != "" {
		t.Errorf("kept files (-want +got):\n%s", diff)
	}
	if len(g.Refused) != 1 || g.Refused[0].Task != "b" || !strings.Contains(g.Refused[0].Reason, "x.md was left by an earlier task") {
		t.Errorf("refused = %v", g.Refused)
	}
}

// An output.md is bounded by the plan's executor.max-output, as the agent's
// output was in its task (and in a one-job run): one above 16 MiB under the
// default 64 MiB is taken, one above a configured max-output is refused,
// naming its size, even when its hashes were made to match.
func TestGatherOutputLimitIsMaxOutput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, config string
		size         int
		refused      string
	}{
		{"17 MiB under the default", "", 17 << 20, ""},
		{"3000 bytes over max-output 2048", "executor: { max-output: 2048 }\n", 3000, "output.md is 3000 bytes; at most 2048 are read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			plan, ws := newPlan(t, parseConfig(t, demoConfig+tc.config))
			out := filepath.Join(ws, "optr-tasks")
			runTasks(t, plan, ws, out)
			// good's output replaced, its result's hashes made to match.
			output := strings.Repeat("a", tc.size)
			writeFile(t, filepath.Join(out, TaskDirName("good"), OutputFile), output)
			editResult(t, out, "good", func(tr *TaskResult) {
				tr.OutputSHA256 = executor.SHA256Hex(output)
				tr.Result.OutputSHA256 = tr.OutputSHA256
			})

			g, err := Gather(t.Context(), plan, out)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.refused == "" && (len(g.Refused) > 0 || len(g.Results[0].Output) != tc.size):
				t.Errorf("refused %v; good's output is %d bytes, want %d", g.Refused, len(g.Results[0].Output), tc.size)
			case tc.refused != "" && (len(g.Refused) != 1 || !strings.Contains(g.Refused[0].Reason, tc.refused)):
				t.Errorf("refused %v, want good's output refused for %q", g.Refused, tc.refused)
			}
		})
	}
}
