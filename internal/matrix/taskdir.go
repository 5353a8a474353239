package matrix

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/ledger"
)

// Files of a task folder.
const (
	// TaskDirPrefix starts every task folder's (and artifact's) name.
	TaskDirPrefix = "optr-task-"
	// ResultFile is the task's result.
	ResultFile = "result.json"
	// OutputFile is the agent's output, beside its result.
	OutputFile = "output.md"
	// FilesDir holds the files the agent left in $OPTR_OUTPUT_DIR.
	FilesDir = "files"
	// ReportFile is the report file a command specialist wrote (delegate).
	ReportFile = "report.md"
	// PatchFile is the agent's code change (changes.mode, architecture §4.12),
	// whose SHA-256 is the result's change.patch_sha256.
	PatchFile = "change.patch"
)

// TaskDirName is the folder (and artifact) name of task id.
func TaskDirName(id string) string { return TaskDirPrefix + id }

// TaskResult is optr-task-<id>/result.json: one agent's result with its
// check results, bound to the plan it ran for.
type TaskResult struct {
	RunID        string `json:"run_id"`
	IntentSHA256 string `json:"intent_sha256"`
	ConfigSHA256 string `json:"config_sha256"`
	Task         string `json:"task"`
	Agent        string `json:"agent"`
	// OutputSHA256 is the hash of output.md, the agent's output.
	OutputSHA256 string `json:"output_sha256"`
	// Result is the agent's result; its output is output.md.
	Result *executor.Result `json:"result"`
	// Checks are the verdicts of every constraint on the output.
	Checks check.Evaluation `json:"checks"`
	// Escalations are the watcher's decisions during the task, recorded
	// in the ledger by the gather before the run entry.
	Escalations []ledger.Draft `json:"escalations,omitempty"`
	// Files are the files the agent left in $OPTR_OUTPUT_DIR (already
	// sanitised), kept below files/: slash-separated relative path →
	// SHA-256. The gather puts them into the run's agent-files/.
	Files map[string]string `json:"files,omitempty"`
	// ReportSHA256 is the hash of report.md, the file a command
	// specialist wrote, valid or not ("" when none).
	ReportSHA256 string `json:"report_sha256,omitempty"`
}

// Extras are what a task leaves beside its result.
type Extras struct {
	// Escalations are the watcher's decisions during the task.
	Escalations []ledger.Draft
	// AgentFiles is the task's $OPTR_OUTPUT_DIR ("" when none).
	AgentFiles string
	// Report is the report file a command specialist wrote ("" or a
	// missing file when none).
	Report string
	// Patch is the agent's captured change ("" when it has none).
	Patch string
}

// WriteTask writes the folder of task into out (created when missing):
// out/optr-task-<id>/result.json, output.md, files/ with a copy of every
// regular file below extra.AgentFiles, report.md, a copy of extra.Report
// when that is a regular file, and change.patch, a copy of extra.Patch,
// which must hash to the result's patch_sha256. It returns the folder.
func WriteTask(out string, plan *Plan, task Task, r *executor.Result, extra Extras) (string, error) {
	dir := filepath.Join(out, TaskDirName(task.ID))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create the task folder: %w", err)
	}
	files, err := copyTree(extra.AgentFiles, filepath.Join(dir, FilesDir))
	if err != nil {
		return "", fmt.Errorf("keep the agent's files: %w", err)
	}
	reportSum := ""
	if fi, err := os.Lstat(extra.Report); extra.Report != "" && err == nil && fi.Mode().IsRegular() {
		if reportSum, err = copyFile(extra.Report, filepath.Join(dir, ReportFile)); err != nil {
			return "", fmt.Errorf("keep the report: %w", err)
		}
	}
	if extra.Patch != "" {
		sum, err := copyFile(extra.Patch, filepath.Join(dir, PatchFile))
		if err != nil {
			return "", fmt.Errorf("keep the change: %w", err)
		}
		if r.Change == nil || sum != r.Change.PatchSHA256 {
			return "", fmt.Errorf("keep the change: %s hashes to %s, not to the result's patch_sha256", extra.Patch, sum)
		}
	}
	kept := *r
	kept.Output = "" // output.md holds it
	tr := TaskResult{
		RunID: plan.RunID, IntentSHA256: plan.IntentSHA256, ConfigSHA256: plan.ConfigSHA256,
		Task: task.ID, Agent: task.Agent, OutputSHA256: executor.SHA256Hex(r.Output),
		Result: &kept, Checks: r.Checks, Escalations: extra.Escalations, Files: files, ReportSHA256: reportSum,
	}
	data, err := json.MarshalIndent(tr, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode the task result: %w", err)
	}
	if err := datalake.Replace(filepath.Join(dir, OutputFile), []byte(r.Output)); err != nil {
		return "", fmt.Errorf("write the output: %w", err)
	}
	if err := datalake.Replace(filepath.Join(dir, ResultFile), append(data, '\n')); err != nil {
		return "", fmt.Errorf("write the task result: %w", err)
	}
	return dir, nil
}
