package matrix

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/delegate"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/inputfile"
	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/worktree"
)

// PlanVersion is the plan_version this optr writes and reads.
const PlanVersion = 1

// Limits of GitHub Actions that a plan respects (architecture §6).
const (
	// MaxTasks is the most jobs one matrix may hold.
	MaxTasks = 256
	// MaxMatrixBytes bounds the matrix output: a job output holds at most 1 MB.
	MaxMatrixBytes = 1 << 20
	// maxPlanBytes bounds plan.json when it is read back: the intent (at
	// most 1 MiB) and the config with room to spare.
	maxPlanBytes = 8 << 20
)

// PlanFile is the name of the plan in the plan directory.
const PlanFile = "plan.json"

// Plan is plan.json: everything a task and the gather need, so that no
// later job re-reads a config that may have changed since.
type Plan struct {
	PlanVersion  int    `json:"plan_version"`
	RunID        string `json:"run_id"`
	Workflow     string `json:"workflow"`
	Intent       string `json:"intent"`
	IntentSHA256 string `json:"intent_sha256"`
	// Constraints are the run's resolved constraint names (config policy
	// plus the intent's), as the ledger records them.
	Constraints []string `json:"constraints"`
	// IntentConstraints are the names the intent added: with the embedded
	// config they resolve to Constraints again.
	IntentConstraints []string `json:"intent_constraints,omitempty"`
	Pipeline          string   `json:"pipeline"`
	Mode              string   `json:"mode"`
	ConfigSHA256      string   `json:"config_sha256"`
	Commit            string   `json:"commit,omitempty"`
	Tasks             []Task   `json:"tasks"`
	// Config is the resolved config the plan was made with.
	Config Config `json:"config"`
	// Issue and Title name the issue the run talks on (0: none).
	Issue int    `json:"issue,omitempty"`
	Title string `json:"title,omitempty"`
	// Specialists are a delegation's specialists (the pipeline's agents,
	// narrowed by --agents); Coordinator is its coordinator's result and
	// Topics the plan it made, in plan (the coordinator runs there).
	Specialists []string         `json:"specialists,omitempty"`
	Coordinator *executor.Result `json:"coordinator,omitempty"`
	Topics      []delegate.Topic `json:"topics,omitempty"`
	// Own are optr's own files and folders in the repository (its
	// datalake, ledger and config file, relative to the top level) when
	// agents change code: the tasks, which record in scratch datalakes,
	// and the gather refuse a change that touches one.
	Own []worktree.Own `json:"own,omitempty"`
}

// Task is one matrix job: one agent (select) or one specialist invocation
// of a topic (delegate).
type Task struct {
	ID    string `json:"id"`
	Agent string `json:"agent"`
	Topic string `json:"topic,omitempty"`
	// N numbers a delegate task's topic from 1; Name is its result name
	// (<agent>.<NNN>).
	N    int    `json:"n,omitempty"`
	Name string `json:"name,omitempty"`
}

// ResultName is the name the task's result carries: the agent's for
// select, <agent>.<NNN> for a delegate specialist.
func (t Task) ResultName() string {
	if t.Name != "" {
		return t.Name
	}
	return t.Agent
}

var taskIDRE = lazyregexp.New(`^[a-z0-9][a-z0-9._-]*$`)

// ValidateTaskID reports whether id is a task id: a slug ([a-z0-9._-], at
// most 64 characters, not starting with '.', '_' or '-'). It names the
// artifact optr-task-<id> and a folder, so nothing else is allowed.
func ValidateTaskID(id string) error {
	switch {
	case id == "":
		return errors.New("task id is empty")
	case len(id) > datalake.MaxNameLen:
		return fmt.Errorf("task id %q is %d characters long; at most %d are allowed", id, len(id), datalake.MaxNameLen)
	case !taskIDRE.MatchString(id):
		return fmt.Errorf("task id %q is not a slug: use lowercase letters, digits, '.', '_' and '-', not starting with '.', '_' or '-'", id)
	}
	return nil
}

// Validate checks a plan's own consistency: version, names, the intent's
// hash, task ids (slugs, unique, at most MaxTasks) and the config's hash.
func (p *Plan) Validate() error {
	var errs []error
	if p.PlanVersion != PlanVersion {
		errs = append(errs, fmt.Errorf("plan_version is %d; this optr reads version %d", p.PlanVersion, PlanVersion))
	}
	if err := datalake.ValidateRunID(p.RunID); err != nil {
		errs = append(errs, err)
	}
	if err := datalake.ValidateWorkflow(p.Workflow); err != nil {
		errs = append(errs, err)
	}
	if p.Intent == "" {
		errs = append(errs, errors.New("the intent is empty"))
	} else if got := executor.SHA256Hex(p.Intent); got != p.IntentSHA256 {
		errs = append(errs, fmt.Errorf("intent_sha256 is %s but the intent hashes to %s", p.IntentSHA256, got))
	}
	if len(p.Tasks) == 0 {
		errs = append(errs, errors.New("the plan has no tasks"))
	}
	if len(p.Tasks) > MaxTasks {
		errs = append(errs, fmt.Errorf("the plan has %d tasks; a GitHub Actions matrix holds at most %d jobs: run fewer agents or topics", len(p.Tasks), MaxTasks))
	}
	seen := map[string]bool{}
	for _, t := range p.Tasks {
		if err := ValidateTaskID(t.ID); err != nil {
			errs = append(errs, err)
		}
		if seen[t.ID] {
			errs = append(errs, fmt.Errorf("task id %q appears twice", t.ID))
		}
		seen[t.ID] = true
		if _, ok := p.Config.Settings.Agents[t.Agent]; !ok && p.Config.Settings != nil {
			errs = append(errs, fmt.Errorf("task %q runs agent %q, which the plan's config does not define", t.ID, t.Agent))
		}
	}
	if t, err := p.traits(); err != nil {
		errs = append(errs, err)
	} else if t.Split == pipeline.SplitTopics {
		if p.Coordinator == nil || len(p.Topics) == 0 {
			errs = append(errs, errors.New("a delegate plan needs the coordinator's result and its topics"))
		}
		for _, t := range p.Tasks {
			if t.N < 1 || t.N > len(p.Topics) || t.Name == "" {
				errs = append(errs, fmt.Errorf("task %q: topic %d of %d, result name %q", t.ID, t.N, len(p.Topics), t.Name))
			}
		}
	}
	if p.Config.Settings == nil {
		errs = append(errs, errors.New("the plan has no config"))
	} else if sum, err := p.Config.SHA256(); err != nil {
		errs = append(errs, err)
	} else if sum != p.ConfigSHA256 {
		errs = append(errs, fmt.Errorf("config_sha256 is %s but the plan's config hashes to %s: the plan was changed", p.ConfigSHA256, sum))
	}
	return errors.Join(errs...)
}

// Task returns the task with id.
func (p *Plan) Task(id string) (Task, bool) {
	i := slices.IndexFunc(p.Tasks, func(t Task) bool { return t.ID == id })
	if i < 0 {
		return Task{}, false
	}
	return p.Tasks[i], true
}

// TaskIDs lists the plan's task ids in plan order.
func (p *Plan) TaskIDs() []string {
	out := make([]string, len(p.Tasks))
	for i, t := range p.Tasks {
		out[i] = t.ID
	}
	return out
}

// Matrix is the strategy.matrix a plan prints: {"include":[{"task":"<id>"},…]}.
type Matrix struct {
	Include []MatrixEntry `json:"include"`
}

// MatrixEntry is one job of the matrix.
type MatrixEntry struct {
	Task string `json:"task"`
}

// Matrix returns the plan's matrix as compact JSON, refusing one larger
// than a job output may hold.
func (p *Plan) Matrix() ([]byte, error) {
	m := Matrix{Include: make([]MatrixEntry, len(p.Tasks))}
	for i, t := range p.Tasks {
		m.Include[i] = MatrixEntry{Task: t.ID}
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if len(data) > MaxMatrixBytes {
		return nil, fmt.Errorf("the matrix is %d bytes; a job output holds at most %d", len(data), MaxMatrixBytes)
	}
	return data, nil
}

// Write writes the plan to dir/plan.json (the directory is created) and
// returns the file's path. It refuses a plan that does not validate.
func (p *Plan) Write(dir string) (string, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode the plan: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create the plan directory: %w", err)
	}
	path := filepath.Join(dir, PlanFile)
	if err := datalake.Replace(path, append(data, '\n')); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// ReadPlan reads and validates plan.json at path (a directory is taken to
// hold plan.json). Unknown members are refused: a plan from a newer optr
// must not be half understood.
func ReadPlan(path string) (*Plan, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, PlanFile)
	}
	data, err := inputfile.ReadFile(path, maxPlanBytes)
	if err != nil {
		return nil, fmt.Errorf("read the plan: %w", err)
	}
	var p Plan
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("read the plan %s: %w", path, err)
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("the plan %s is not valid: %w", path, err)
	}
	return &p, nil
}

// traits are the traits of the plan's mode; a mode optr does not know, or
// one the matrix does not split, is an error.
func (p *Plan) traits() (pipeline.Traits, error) {
	t, ok := pipeline.ModeTraits(p.Mode)
	switch {
	case !ok:
		return t, fmt.Errorf("the plan's mode %q is not a pipeline mode optr knows", p.Mode)
	case t.Split == pipeline.SplitNone:
		return t, fmt.Errorf("the plan's mode is %s, which the matrix does not run", p.Mode)
	}
	return t, nil
}
