package executor

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/preset"
	"github.com/optr-dev/optr/internal/recovery"
	"github.com/optr-dev/optr/internal/sandbox/proxy"
	"github.com/optr-dev/optr/internal/spool"
	"github.com/optr-dev/optr/internal/status"
	"github.com/optr-dev/optr/internal/worktree"
)

// Result is one agent's result in a run: what agent-outputs/<agent>.json holds.
type Result struct {
	Agent    string        `json:"agent"`
	Provider string        `json:"provider"`
	Model    string        `json:"model,omitempty"`
	Status   status.Status `json:"status"`
	// Output is the agent's final output (empty when it produced none, or
	// when OutputFile holds it).
	Output       string `json:"output"`
	OutputSHA256 string `json:"output_sha256"`
	// OutputBase64 holds the output's bytes (standard base64) when they
	// are not valid UTF-8: JSON can only carry Output with U+FFFD in place
	// of the bad bytes, and OutputSHA256 is the hash of the bytes, so the
	// hash is reproducible from this file alone (see OutputBytes).
	OutputBase64 string `json:"output_base64,omitempty"`
	// Raw is the model's unparsed text when its answer could not be used.
	Raw      string `json:"raw,omitempty"`
	Stderr   string `json:"stderr,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	// Error, Class and Reason describe the final failure, if any.
	Error  string `json:"error,omitempty"`
	Class  string `json:"class,omitempty"`
	Reason string `json:"reason,omitempty"`
	// TTVms is the time-to-value: the agent's own estimate when it gave
	// one (TTVSource "agent"), else the measured time ("measured"). A
	// claim earlier than the agent's first output (from the start of its
	// first attempt) is bounded to it (TTVSource "bounded", the claim in
	// TTVClaimedMS): no value exists before an output does.
	TTVms        int64  `json:"ttv_ms"`
	TTVSource    string `json:"ttv_source"`
	TTVClaimedMS int64  `json:"ttv_claimed_ms,omitempty"`
	// ExecMS is the measured wall time of the agent, every attempt included.
	ExecMS     int64              `json:"exec_ms"`
	StartedAt  time.Time          `json:"started_at"`
	FinishedAt time.Time          `json:"finished_at"`
	Attempts   []recovery.Attempt `json:"attempts"`
	// Usage is the tokens of the agent's attempts and analyses: null when
	// nothing of them is known (a command agent outside the model
	// gateway), the known part with the count of unknown calls otherwise.
	Usage agent.Usage `json:"usage"`
	// Requests are the model requests its attempts made through the model
	// gateway (architecture §4.18), each naming its attempt (its place in
	// attempts); RequestsOmitted counts those past the gateway's bound on
	// one attempt's record, whose use Usage still counts.
	Requests        []agent.Call `json:"requests,omitempty"`
	RequestsOmitted int          `json:"requests_omitted,omitempty"`
	// Spent is everything spent for this result — its attempts and
	// analyses, the judges and detectors of its output — priced (architecture
	// §4.17). The pipeline fills it in once the result's checks are done;
	// nil until then.
	Spent   *cost.Spend    `json:"spent,omitempty"`
	Signals []agent.Signal `json:"signals,omitempty"`
	// Network is every host the agent's sandboxed processes asked the
	// egress proxy for, reached or refused (architecture §4.14).
	Network []proxy.Host `json:"network,omitempty"`
	// Session is what a preset's CLI said of its last launch's last
	// attempt in its event stream: turns, tool calls, the use and cost it
	// reported itself (architecture §4.18); nil for other agents.
	Session *preset.Session `json:"session,omitempty"`
	// EscalationReason says why recovery gave up, when it did.
	EscalationReason string             `json:"escalation_reason,omitempty"`
	Analysis         *recovery.Analysis `json:"analysis,omitempty"`
	BudgetExhausted  bool               `json:"budget_exhausted,omitempty"`

	// Restarts counts the relaunches of this agent with fresh state (the
	// watcher's restart decision); Attempts holds every launch's attempts.
	Restarts int `json:"restarts,omitempty"`
	// Replaces names the failed agent whose task this agent took over
	// (reassign); ReplacedBy names the agent that took over this one's.
	Replaces   string `json:"replaces,omitempty"`
	ReplacedBy string `json:"replaced_by,omitempty"`
	// Configured names the configured agent whose result this is when
	// Agent is another name for it (a delegation's candidate,
	// <agent>.<NNN>); empty when Agent is the configured name. What is
	// learned of an agent — selection.preference, what people did with its
	// pull requests — is looked up by it (ConfiguredAgent).
	Configured string `json:"configured,omitempty"`
	// SynthesizedFrom names the agents whose partial outputs the
	// synthesis step was given (set on the synthesis result only).
	SynthesizedFrom []string `json:"synthesized_from,omitempty"`
	// Decision is what the watcher decided after this agent failed
	// (reassign, synthesize, abort, escalate_ceo; restart when it could not
	// be carried out), DecisionID the escalation's id, and DecisionNote how
	// it was carried out.
	Decision     string `json:"decision,omitempty"`
	DecisionID   string `json:"decision_id,omitempty"`
	DecisionNote string `json:"decision_note,omitempty"`

	// Change is the agent's code change when it worked in a git worktree
	// of its own (architecture §4.12): files changed, lines added and removed,
	// patch_sha256. The patch itself is agent-outputs/<agent>.patch. Nil
	// when agents do not change code.
	Change *worktree.Change `json:"change,omitempty"`

	// OutputFile, when set, holds the output on disk instead of Output
	// (an output too large to keep in memory, see agent.Request.SpoolDir);
	// RawFile likewise holds Raw. Encoding a Result to JSON reads them back
	// (EncodeJSON streams them), so its agent file is the same bytes either
	// way.
	OutputFile *spool.File `json:"-"`
	RawFile    *spool.File `json:"-"`

	// Checks is filled after the result was captured; it is not part of the
	// agent output file (the selection file holds the verdicts).
	Checks check.Evaluation `json:"-"`
}

// HasOutput reports whether the agent produced output worth considering.
func (r *Result) HasOutput() bool { return r.Output != "" || r.OutputFile != nil }

// ConfiguredAgent is the configured agent (agents.<name>) whose result r
// is: Configured, else Agent.
func (r *Result) ConfiguredAgent() string {
	if r.Configured != "" {
		return r.Configured
	}
	return r.Agent
}

// Spooled reports whether the output or the raw text is on disk.
func (r *Result) Spooled() bool { return r.OutputFile != nil || r.RawFile != nil }

// Partial returns what a failed agent left: its output, or else the
// partial output kept in Raw. Of an output on disk it returns the first
// spool.ExcerptMax bytes.
func (r *Result) Partial() string {
	switch {
	case r.Output != "":
		return r.Output
	case r.OutputFile != nil:
		return r.OutputFile.Excerpt
	case r.Raw != "":
		return r.Raw
	case r.RawFile != nil:
		return r.RawFile.Excerpt
	}
	return ""
}

// partialRunes is the number of characters of what Partial returns a
// part of.
func (r *Result) partialRunes() int {
	switch {
	case r.Output != "":
		return utf8.RuneCountInString(r.Output)
	case r.OutputFile != nil:
		return int(r.OutputFile.Runes)
	case r.Raw != "":
		return utf8.RuneCountInString(r.Raw)
	case r.RawFile != nil:
		return int(r.RawFile.Runes)
	}
	return 0
}

// Excerpt returns at most the first max bytes of the output (without a
// character the cut splits) and whether that is all of it; an output on
// disk is not read.
func (r *Result) Excerpt(max int) (string, bool) {
	text, size := r.Output, int64(len(r.Output))
	if r.OutputFile != nil {
		text, size = r.OutputFile.Excerpt, r.OutputFile.Size
	}
	text = spool.Head(text, max)
	return text, int64(len(text)) == size
}

// setOutput sets Output, its hash, and OutputBase64 when the bytes are not
// valid UTF-8.
func (r *Result) setOutput(s string) {
	r.Output, r.OutputSHA256, r.OutputBase64, r.OutputFile = s, SHA256Hex(s), "", nil
	if !utf8.ValidString(s) {
		r.OutputBase64 = base64.StdEncoding.EncodeToString([]byte(s))
	}
}

// setSpool makes f the output: its hash is the file's, and OutputBase64 is
// filled in when the result is encoded.
func (r *Result) setSpool(f *spool.File) {
	r.Output, r.OutputSHA256, r.OutputBase64, r.OutputFile = "", f.SHA256, "", f
}

// OutputBytes returns the output's bytes as recorded in an agent output
// file: OutputBase64 decoded when present, else Output (read from disk when
// OutputFile holds it). Their SHA-256 is OutputSHA256.
func (r *Result) OutputBytes() ([]byte, error) {
	if r.OutputFile != nil {
		s, err := r.OutputFile.ReadString()
		return []byte(s), err
	}
	if r.OutputBase64 == "" {
		return []byte(r.Output), nil
	}
	b, err := base64.StdEncoding.DecodeString(r.OutputBase64)
	if err != nil {
		return nil, fmt.Errorf("agent %s: output_base64: %w", r.Agent, err)
	}
	return b, nil
}

// SHA256Hex is the lowercase hex SHA-256 of s.
func SHA256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
