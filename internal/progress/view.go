package progress

import (
	"time"

	"github.com/optr-dev/optr/internal/status"
)

// agentDone reports whether an agent in status s has finished for good.
func agentDone(s status.Status) bool {
	return s == status.Succeeded || s == status.Failed || s == status.Escalated
}

// View is a run as it is shown to people.
type View struct {
	// RunID identifies the run; it goes into the comment's hidden marker.
	RunID string
	// Workflow is the workflow slug.
	Workflow string
	// Title is the issue title or the first line of the intent (untrusted).
	Title string
	// Status is the run's state.
	Status status.Status
	// Agents are the agents in the order to show them.
	Agents []AgentLine
	// Table is the score table, in the order to show it; empty until the
	// agents have been scored.
	Table []Row
	// Selected is the agent whose result was selected (π*), empty if none.
	Selected string
	// Result is π*'s output (untrusted).
	Result string
	// ResultPath is where the whole result is committed, repo-relative.
	ResultPath string
	// ResultURL links to the committed result file (see BlobURL); when set,
	// ResultPath is shown as a link to it.
	ResultURL string
	// RunURL links to the Actions run that ran optr (see ActionsRunURL);
	// when set, the status line links to it.
	RunURL string
	// LedgerHash is the hash of the last ledger entry the run appended.
	LedgerHash string
	// Commit is the sha of the commit that holds the ledger entry.
	Commit string
	// CommitURL links to that commit.
	CommitURL string
	// LedgerCheckpoint is the ledger's C2SP checkpoint after the run
	// (architecture §4.13), shown collapsed under the footer.
	LedgerCheckpoint string
	// PullRequest is the number of the pull request holding π*'s code
	// change (0: none); PullRequestURL its page.
	PullRequest    int
	PullRequestURL string
	// CheckpointID names the checkpoint a paused run waits on.
	CheckpointID string
	// TieBreak says in numbers how what people did with the agents' pull
	// requests broke a tie of scores (architecture §4.19); empty when it
	// did not.
	TieBreak string
	// Unverified names the constraints the intent asked for that nothing
	// checks: not defined in the config, and no judge agent (architecture §4.8).
	Unverified []string
	// Detection is what threat detection found in the result delivered,
	// or to be delivered (architecture §4.15); nil when nothing was scanned.
	Detection *Detection
	// Message says why the run failed, paused or was skipped (untrusted).
	Message string
	// Details is a pipeline mode's own account of the run (a delegation's
	// summary, a stage checklist) as Markdown the mode escaped; shown under
	// the agents, cut to fit.
	Details string
	// Sandbox says what the run's sandbox enforced (one line), and
	// SandboxNotes what it did not and why (architecture §4.14); empty when
	// unknown.
	Sandbox      string
	SandboxNotes []string
	// Started and Finished bound the run; zero when unknown.
	Started, Finished time.Time
}

// AgentLine is one agent's progress.
type AgentLine struct {
	// Name is the agent's configured name.
	Name string
	// Provider is the agent's provider (openai, command, …).
	Provider string
	// State is where the agent is now.
	State status.Status
	// Elapsed is how long the agent has run (so far, or in all).
	Elapsed time.Duration
	// Attempts counts the attempts made, retries included.
	Attempts int
	// Note is a short remark such as the last error (untrusted).
	Note string
}

// Row is one agent's line in the score table.
type Row struct {
	// Agent names the agent.
	Agent string
	// Admissible is true when the result passed every hard constraint.
	Admissible bool
	// Invariants are the constraints the result was verified to satisfy.
	Invariants []string
	// Failed are the constraints it failed, with reasons (untrusted).
	Failed []string
	// Error is why the agent gave no result, its final error (untrusted);
	// empty when it gave one.
	Error string
	// TTVms is the agent's time-to-value in milliseconds: its own claim,
	// or what was measured.
	TTVms int64
	// TTVClaimedMS is the agent's claim when it was earlier than its first
	// output: TTVms was bounded to that, and the table says so.
	TTVClaimedMS int64
	// ExecMS is the measured execution time in milliseconds.
	ExecMS int64
	// Score is the weighted score (0–100).
	Score float64
	// Tokens counts the tokens the agent used and CostUSD what it cost:
	// the known part, nil when nothing of it is known (architecture
	// §4.17). TokensUnknown and CostUnknown say that a part of them is
	// unknown: the cell marks the figure as a lower bound.
	Tokens                     *int64
	CostUSD                    *float64
	TokensUnknown, CostUnknown bool
}

// Detection is threat detection's verdict on one result.
type Detection struct {
	// Verdict is clean, warn or blocked.
	Verdict string
	// Agent is the result scanned.
	Agent string
	// Findings are the findings, one line each (never a secret; they
	// name a file of the change, whose path is untrusted).
	Findings []string
}
