package escalation

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// canonical re-encodes JSON with sorted keys and no spaces, so two
// documents can be compared for meaning.
func canonical(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func marshal(t *testing.T, b *Blackboard) []byte {
	t.Helper()
	out, err := json.Marshal(b)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return out
}

const seedBoard = `{
  "version": 7,
  "agents": {
    "alpha": {"status": "active", "task": "write", "outputs": ["agent_alpha.md", {"kind": "note"}], "error": "", "updated_at": "2026-01-01T00:00:00Z", "pid": 4242, "meta": {"model": "x"}},
    "beta": {"status": "stuck", "task": "read", "outputs": [], "error": "boom", "updated_at": "2026-01-01T00:00:01Z"}
  },
  "task_queue": [
    {"id": "t1", "description": "write", "status": "active", "assigned_to": "alpha", "attempts": 1, "priority": "high"}
  ],
  "findings": [{"by": "beta", "text": "found"}],
  "messages": [],
  "conductor": {"pid": 1, "nested": {"deep": [1, 2.50, "x"]}}
}`

func TestBlackboardKeepsUnknownMembers(t *testing.T) {
	t.Parallel()
	b := ParseBlackboard([]byte(seedBoard))
	if len(b.Problems) != 0 {
		t.Fatalf("problems: %v", b.Problems)
	}
	// Untouched, it comes back with the same meaning and member order.
	if diff := cmp.Diff(canonical(t, []byte(seedBoard)), canonical(t, marshal(t, b))); diff != "" {
		t.Errorf("untouched blackboard changed (-want +got):\n%s", diff)
	}
	if got := marshal(t, b); !bytes.Contains(got, []byte(`2.50`)) || bytes.Index(got, []byte(`"version"`)) > bytes.Index(got, []byte(`"agents"`)) {
		t.Errorf("members were reformatted or reordered: %s", got)
	}

	// Changed, only what changed differs.
	b.Agents["alpha"].Status = StatusFailed
	b.Agent("gamma").Status = StatusActive
	b.TaskQueue[0].Attempts = 2
	b.AddTask("t2", "retry", TaskPending, "")
	if err := b.AddMessage(map[string]string{"type": "decision"}); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(marshal(t, b), &got); err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal([]byte(seedBoard), &want); err != nil {
		t.Fatal(err)
	}
	agents := want["agents"].(map[string]any)
	agents["alpha"].(map[string]any)["status"] = "failed"
	agents["gamma"] = map[string]any{"status": "active", "task": "", "outputs": []any{}, "error": "", "updated_at": ""}
	queue := want["task_queue"].([]any)
	queue[0].(map[string]any)["attempts"] = 2.0
	want["task_queue"] = append(queue, map[string]any{"id": "t2", "description": "retry", "status": "pending", "assigned_to": "", "attempts": 0.0})
	want["messages"] = []any{map[string]any{"type": "decision"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changed blackboard (-want +got):\n%s", diff)
	}
}

func TestBlackboardWrongTypesAreKept(t *testing.T) {
	t.Parallel()
	in := `{"agents": {"a": {"status": 3, "outputs": "none", "x": 1}, "b": "not an object"},
		"task_queue": [{"id": "t", "attempts": "two"}, "a bare string"], "findings": {"odd": true}, "messages": []}`
	b := ParseBlackboard([]byte(in))
	if len(b.Problems) != 6 {
		t.Errorf("problems = %d, want 6: %q", len(b.Problems), b.Problems)
	}
	if diff := cmp.Diff(canonical(t, []byte(in)), canonical(t, marshal(t, b))); diff != "" {
		t.Errorf("members of the wrong type were not kept (-want +got):\n%s", diff)
	}
	b.Agents["a"].Error = "set"
	var got struct {
		Agents map[string]any `json:"agents"`
	}
	if err := json.Unmarshal(marshal(t, b), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"status": 3.0, "outputs": "none", "x": 1.0, "error": "set"}
	if diff := cmp.Diff(want, got.Agents["a"]); diff != "" {
		t.Errorf("agent a (-want +got):\n%s", diff)
	}
}

func TestNewBlackboardShape(t *testing.T) {
	t.Parallel()
	b := NewBlackboard()
	a := b.Agent("x")
	a.Status, a.Task = StatusActive, "do"
	b.AddTask("t", "do", TaskActive, "x").Attempts = 1
	got := string(marshal(t, b))
	want := `{"agents":{"x":{"status":"active","task":"do","outputs":[],"error":"","updated_at":""}},` +
		`"task_queue":[{"id":"t","description":"do","status":"active","assigned_to":"x","attempts":1}],"findings":[],"messages":[]}`
	if got != want {
		t.Errorf("new blackboard:\n got %s\nwant %s", got, want)
	}
}

func TestBlackboardSave(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		content    string // "" = no file
		wantBackup bool
	}{
		{"missing", "", false},
		{"empty", "  \n", false},
		{"seed", seedBoard, false},
		{"not JSON", `{"agents": {`, true},
		{"not an object", `[1,2]`, true},
		{"wrong types", `{"agents": []}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, FileBlackboard)
			if tt.content != "" {
				if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b, err := LoadBlackboard(path)
			if err != nil {
				t.Fatal(err)
			}
			b.Agent("new").Status = StatusActive
			if err := b.Save(path, t0); err != nil {
				t.Fatal(err)
			}
			if err := b.Save(path, t0.Add(time.Second)); err != nil { // a second save backs up nothing more
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			back := ParseBlackboard(data)
			if len(back.Problems) != 0 && !tt.wantBackup {
				t.Errorf("saved blackboard has problems: %v", back.Problems)
			}
			if back.Agents["new"] == nil || back.Agents["new"].Status != StatusActive {
				t.Errorf("saved blackboard lost the new agent:\n%s", data)
			}
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			want := []string{FileBlackboard}
			if tt.wantBackup {
				want = []string{FileBlackboard, FileBlackboard + ".bak-20260304-050607"}
				kept, err := os.ReadFile(filepath.Join(dir, want[1]))
				if err != nil || string(kept) != tt.content {
					t.Errorf("backup = %q, %v; want the original %q", kept, err, tt.content)
				}
			}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadBlackboardUnreadable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := LoadBlackboard(dir); err == nil { // a directory cannot be read as a file
		t.Fatal("LoadBlackboard on a directory: no error")
	}
}

func FuzzParseBlackboard(f *testing.F) {
	f.Add([]byte(seedBoard))
	f.Add([]byte(`{"agents": {"a": {"status": 3}}, "task_queue": {}, "x": null}`))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, in []byte) {
		b := ParseBlackboard(in)
		out, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if !json.Valid(out) {
			t.Fatalf("output is not JSON: %s", out)
		}
		// Writing is stable: what optr wrote reads back and writes the same.
		again, err := json.Marshal(ParseBlackboard(out))
		if err != nil {
			t.Fatalf("marshal again: %v", err)
		}
		if canonical(t, out) != canonical(t, again) {
			t.Fatalf("not stable:\n%s\n%s", out, again)
		}
		// A readable object keeps every top-level member.
		var orig map[string]json.RawMessage
		if json.Unmarshal(in, &orig) == nil && len(b.Problems) == 0 {
			var got map[string]json.RawMessage
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			for k, v := range orig {
				if k == "agents" || k == "task_queue" || k == "findings" || k == "messages" {
					continue // re-encoded from their Go values
				}
				if canonical(t, v) != canonical(t, got[k]) {
					t.Fatalf("member %q: %s became %s", k, v, got[k])
				}
			}
		}
	})
}
