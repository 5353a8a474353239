package matrix

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/testkit/gittest"
)

func TestConfigRoundTrip(t *testing.T) {
	t.Parallel()
	cfg := parseConfig(t, demoConfig+`recovery: { attempts: 2, base-delay: 2s }
watcher: { stuck-after: 90s }
pipelines:
  fast: { agents: [good] }
`)
	data, err := json.Marshal(EmbedConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	got, err := back.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cfg, got); diff != "" {
		t.Errorf("config after the plan (-want +got):\n%s", diff)
	}
	s1, err1 := EmbedConfig(cfg).SHA256()
	s2, err2 := back.SHA256()
	if err1 != nil || err2 != nil || s1 != s2 {
		t.Errorf("config_sha256 %s (%v) before, %s (%v) after a round trip", s1, err1, s2, err2)
	}
}

func TestNewPlan(t *testing.T) {
	t.Parallel()
	plan, _ := newPlan(t, parseConfig(t, demoConfig))
	want := []Task{{ID: "good", Agent: "good"}, {ID: "sloppy", Agent: "sloppy"}, {ID: "broken", Agent: "broken"}}
	if diff := cmp.Diff(want, plan.Tasks); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"no-todo", "short"}, plan.Constraints); diff != "" {
		t.Errorf("constraints (-want +got):\n%s", diff)
	}
	m, err := plan.Matrix()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(m), `{"include":[{"task":"good"},{"task":"sloppy"},{"task":"broken"}]}`; got != want {
		t.Errorf("matrix = %s, want %s", got, want)
	}
	if plan.Mode != "select" || plan.Issue != 7 || plan.Title != "Docs" || plan.PlanVersion != 1 {
		t.Errorf("plan = mode %q issue %d title %q version %d", plan.Mode, plan.Issue, plan.Title, plan.PlanVersion)
	}
}

func TestNewPlanRefusesMoreThan256Tasks(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("agents:\n")
	for i := range MaxTasks + 1 {
		fmt.Fprintf(&b, "  a%03d: { provider: command, run: [\"true\"] }\n", i)
	}
	_, err := makePlan(t, parseConfig(t, b.String()), t.TempDir(), "")
	if err == nil || !pipeline.IsInputError(err) || !strings.Contains(err.Error(), "at most 256 jobs") {
		t.Fatalf("NewPlan error = %v, want one about the 256-job limit", err)
	}
}

func TestPlanWriteRead(t *testing.T) {
	t.Parallel()
	plan, _ := newPlan(t, parseConfig(t, demoConfig))
	dir := filepath.Join(t.TempDir(), "optr-plan")
	path, err := plan.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, dir} { // the file or its directory
		got, err := ReadPlan(p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(plan, got); diff != "" {
			t.Errorf("plan read back from %s (-want +got):\n%s", p, diff)
		}
	}
}

func TestReadPlanRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"changed config", func(m map[string]any) {
			m["config"].(map[string]any)["settings"].(map[string]any)["selection"].(map[string]any)["on-no-admissible"] = "least-bad"
		}, "config_sha256"},
		{"changed intent", func(m map[string]any) { m["intent"] = "something else" }, "intent_sha256"},
		{"newer version", func(m map[string]any) { m["plan_version"] = 2 }, "plan_version is 2"},
		{"unknown member", func(m map[string]any) { m["extra"] = true }, `unknown field "extra"`},
		{"task id not a slug", func(m map[string]any) {
			m["tasks"].([]any)[0].(map[string]any)["id"] = "../up"
		}, `task id "../up" is not a slug`},
		{"duplicate task", func(m map[string]any) {
			m["tasks"].([]any)[1].(map[string]any)["id"] = "good"
		}, `task id "good" appears twice`},
		{"unknown agent", func(m map[string]any) {
			m["tasks"].([]any)[1].(map[string]any)["agent"] = "ghost"
		}, `runs agent "ghost"`},
		{"too many tasks", func(m map[string]any) {
			var tasks []any
			for i := range MaxTasks + 1 {
				tasks = append(tasks, map[string]any{"id": fmt.Sprintf("t%d", i), "agent": "good"})
			}
			m["tasks"] = tasks
		}, "at most 256 jobs"},
		{"bad run id", func(m map[string]any) { m["run_id"] = "../r" }, "run id"},
	}
	plan, _ := newPlan(t, parseConfig(t, demoConfig))
	orig, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var m map[string]any
			if err := json.Unmarshal(orig, &m); err != nil {
				t.Fatal(err)
			}
			tt.edit(m)
			data, _ := json.Marshal(m)
			path := filepath.Join(t.TempDir(), PlanFile)
			writeFile(t, path, string(data))
			_, err := ReadPlan(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ReadPlan error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestMatrixOverOneMegabyteRefused(t *testing.T) {
	t.Parallel()
	p := &Plan{}
	id := strings.Repeat("x", 64)
	for range MaxMatrixBytes / 70 {
		p.Tasks = append(p.Tasks, Task{ID: id, Agent: "a"})
	}
	_, err := p.Matrix()
	if err == nil || !strings.Contains(err.Error(), "a job output holds at most") {
		t.Fatalf("Matrix error = %v, want the 1 MB limit", err)
	}
}

func TestValidateTaskID(t *testing.T) {
	t.Parallel()
	for id, ok := range map[string]bool{
		"good": true, "a.b_c-1": true, "": false, "Good": false, "-x": false, ".x": false,
		"a/b": false, "..": false, strings.Repeat("a", 65): false, "a b": false,
	} {
		if err := ValidateTaskID(id); (err == nil) != ok {
			t.Errorf("ValidateTaskID(%q) = %v, want ok=%t", id, err, ok)
		}
	}
}

func TestReadPlanMissing(t *testing.T) {
	t.Parallel()
	_, err := ReadPlan(filepath.Join(t.TempDir(), "nope.json"))
	if err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Fatalf("ReadPlan error = %v, want not-exist", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestNewPlanRefusesOtherModes(t *testing.T) {
	t.Parallel()
	cfg := parseConfig(t, demoConfig+`pipelines:
  chain: { mode: stages, agents: [good, sloppy] }
`)
	_, err := makePlan(t, cfg, t.TempDir(), "chain")
	if err == nil || !strings.Contains(err.Error(), `pipeline "chain" has mode stages: the matrix runs select and delegate pipelines`) {
		t.Fatalf("NewPlan error = %v", err)
	}
}

// With code changes on, a plan needs a git workspace (its commit is where
// every task's change starts) and a select pipeline; either is an input
// error before any agent runs (a delegation's coordinator included).
func TestMakePlanChangesNeedGitAndSelect(t *testing.T) {
	t.Parallel()
	_, err := makePlan(t, parseConfig(t, demoConfig+"changes: { mode: pull-request }\n"), t.TempDir(), "")
	if !pipeline.IsInputError(err) || !strings.Contains(err.Error(), "changes.mode is pull-request: worktrees:") || !strings.Contains(err.Error(), "is not inside a git work tree") {
		t.Fatalf("MakePlan in a directory without git = %v", err)
	}
	marker := filepath.Join(t.TempDir(), "coordinated")
	cfg := parseConfig(t, strings.Replace(demoConfig, "agents:\n", "agents:\n  planner: { provider: command, run: [sh, -c, \"touch "+marker+"\"] }\n", 1)+`changes: { mode: pull-request }
pipelines:
  research: { mode: delegate, coordinator: planner, agents: [good, sloppy] }
`)
	_, err = makePlan(t, cfg, gittest.Repo(t, map[string]string{"a.txt": "a\n"}), "research")
	if !pipeline.IsInputError(err) || !strings.Contains(err.Error(), "code changes need mode select") {
		t.Fatalf("MakePlan of a delegation with changes = %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the coordinator ran")
	}
}
