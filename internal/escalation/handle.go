package escalation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// maxAgentOutput bounds how much of one agent_*.md file is read.
const maxAgentOutput = 1 << 20

// HandleOptions configure the standalone handler.
type HandleOptions struct {
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Stderr receives the log lines (discarded when nil).
	Stderr io.Writer
	// MaxFailures is watcher.max-failures (DefaultMaxFailures when ≤ 0).
	MaxFailures int
	// MaxRestarts, when > 0, stops restarting an agent that the last
	// RecentEntries watcher-log entries show restarted that many times;
	// 0 means no limit.
	MaxRestarts int
	// CEOInbox is the ceo-inbox directory (default: ceo-inbox beside the
	// .coordination directory, as in the seed).
	CEOInbox string
}

// Outcome is what Handle did.
type Outcome struct {
	// Handled is false when there was no escalate.md: nothing to do.
	Handled bool
	// Escalation is the escalation handled and its decision.
	Escalation Escalation
	// Problems lists the optional files that could not be read (each was
	// treated as empty and logged).
	Problems []string
}

// Handle is the one-shot handler on a .coordination directory (architecture
// §4.7). With no escalate.md there is nothing to do. Otherwise it reads
// escalate.md, blackboard.json, the last RecentEntries entries of
// watcher-log.md and every agent_*.md; decides; and writes decision.md, the
// updated blackboard.json, a watcher-log.md entry and, for escalate_ceo and
// abort, a ceo-inbox file; then it moves escalate.md to
// archive/escalations/. Missing or unreadable optional files are treated as
// empty; a blackboard that is not valid JSON is copied aside before it is
// replaced. The error reports what could not be written.
func Handle(ctx context.Context, dir string, opts HandleOptions) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	log := &logger{w: opts.Stderr, now: now}
	co := &coord{dir: dir, inbox: opts.CEOInbox, log: log}
	if co.inbox == "" {
		co.inbox = inboxDir(dir)
	}
	raw, err := os.ReadFile(co.path(FileEscalate))
	if errors.Is(err, fs.ErrNotExist) {
		log.printf("no %s in %s: nothing to do", FileEscalate, dir)
		return Outcome{}, nil
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("read %s: %w", co.path(FileEscalate), err)
	}
	ef := ParseEscalationFile(string(raw))
	var out Outcome
	problem := func(format string, args ...any) {
		p := fmt.Sprintf(format, args...)
		out.Problems = append(out.Problems, p)
		log.errorf("%s", p)
	}

	board, err := LoadBlackboard(co.path(FileBlackboard))
	if err != nil {
		problem("%v; it is left alone and this decision is not written to it", err)
	}
	for _, p := range boardProblems(board) {
		problem("%s", p)
	}
	recent, err := ReadLog(co.path(FileWatcherLog), RecentEntries)
	if err != nil {
		problem("%v; the history is taken as empty", err)
	}
	outputs := readAgentOutputs(dir, problem)

	work := board
	if work == nil {
		work = NewBlackboard() // decide on nothing rather than on a guess
	}
	e := standaloneEscalation(ef, work, recent, outputs, opts, now())
	log.printf("escalation %s: trigger %q, agent %q, reason %q", e.ID, ef.TriggerText, e.Agent, e.Reason)
	e.Decision = Respond(e.Situation)
	applyToBoard(work, &e, partialSources(work, outputs, e.Agent))
	if e.Decision.Action == Restart && e.Agent != "" {
		// In a run the watcher marks the agent active when it relaunches
		// it; standalone, the decision is the last word on the blackboard,
		// and whoever acts on it starts the agent fresh: not stuck, not
		// failed.
		work.Agent(e.Agent).Status = StatusActive
		e.Actions = append(e.Actions, fmt.Sprintf("agent %s marked active for its fresh start", e.Agent))
	}
	err = co.conclude(&e, board)
	out.Handled, out.Escalation = true, e
	return out, err
}

func boardProblems(b *Blackboard) []string {
	if b == nil {
		return nil
	}
	return b.Problems
}

// standaloneEscalation builds the escalation and its situation from the
// files of a .coordination directory.
func standaloneEscalation(ef EscalationFile, b *Blackboard, recent []LogEntry, outputs map[string]string, opts HandleOptions, now time.Time) Escalation {
	e := Escalation{ID: safeID(ef.ID), Time: now, Trigger: ef.Trigger, Reason: strings.TrimSpace(ef.Reason), Detail: ef.Body}
	if e.ID == "" {
		e.ID = "escalation-" + now.Format("20060102-150405")
	}
	if e.Reason == "" {
		e.Reason = "escalate.md gives no reason"
	}
	e.Agent = affectedAgent(ef, b, outputs)

	s := Situation{MaxFailures: opts.MaxFailures}
	switch ef.Trigger {
	case TriggerStuck:
		s.Stuck = true
	case TriggerTimeout:
		s.Timeout = true
	case TriggerConflict:
		s.Conflict = true
	case TriggerDeadlock:
		s.Deadlock = true
	case TriggerError:
		s.Error = true
	}
	restarts := 0
	for _, le := range recent {
		if e.Agent != "" && le.Fields["agent"] == e.Agent {
			e.Tried = append(e.Tried, le.Heading)
			if le.Fields["decision"] == string(Restart) {
				restarts++
			}
		}
	}
	if opts.MaxRestarts > 0 && restarts >= opts.MaxRestarts && (s.Stuck || s.Timeout) {
		s.RestartsExhausted, s.Error = true, true
		e.Tried = append(e.Tried, fmt.Sprintf("restarted %d time(s) already (limit %d)", restarts, opts.MaxRestarts))
	}
	if e.Agent != "" {
		if t := b.TaskFor(e.Agent); t != nil && t.Attempts > 0 {
			e.Tried = append(e.Tried, fmt.Sprintf("task %s attempted %d time(s) before", t.ID, t.Attempts))
		}
	}
	for _, id := range b.AgentIDs() {
		a := b.Agents[id]
		if a.Status == StatusFailed {
			s.FailedAgents++
		}
		if a.Error != "" {
			e.LastErrors = append(e.LastErrors, AgentError{Agent: id, Error: a.Error})
		}
	}
	if s.Error {
		// The agent this escalation reports has failed, whether or not
		// the blackboard says so yet.
		if e.Agent == "" && s.FailedAgents == 0 {
			s.FailedAgents = 1
		} else if a, ok := b.Agents[e.Agent]; e.Agent != "" && (!ok || a.Status != StatusFailed) {
			s.FailedAgents++
		}
	}
	s.PartialOutputs = len(partialSources(b, outputs, e.Agent)) > 0
	e.Situation = s
	return e
}

// affectedAgent is the agent an escalation is about: its **Agent:** line;
// else the first known agent its text names; else the only agent the
// blackboard shows in the state the trigger describes.
func affectedAgent(ef EscalationFile, b *Blackboard, outputs map[string]string) string {
	if ef.Agent != "" {
		return ef.Agent
	}
	known := b.AgentIDs()
	for id := range outputs {
		if !slices.Contains(known, id) {
			known = append(known, id)
		}
	}
	text := ef.Reason + "\n" + ef.Body
	best, at := "", -1
	for _, id := range known {
		if i := wordIndex(text, id); i >= 0 && (at < 0 || i < at || i == at && len(id) > len(best)) {
			best, at = id, i
		}
	}
	if best != "" {
		return best
	}
	want := ""
	switch ef.Trigger {
	case TriggerStuck, TriggerTimeout:
		want = StatusStuck
	case TriggerError:
		want = StatusFailed
	default:
		return ""
	}
	var found []string
	for _, id := range b.AgentIDs() {
		if b.Agents[id].Status == want {
			found = append(found, id)
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	return ""
}

// wordIndex finds word in text where it is not part of a longer name.
func wordIndex(text, word string) int {
	if word == "" {
		return -1
	}
	isName := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	for off := 0; ; {
		i := strings.Index(text[off:], word)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(word)
		if (i == 0 || !isName(text[i-1])) && (end == len(text) || !isName(text[end])) {
			return i
		}
		off = i + 1
	}
}

// partialSources names the partial outputs there are: of agent when it is
// known, else of every agent that failed or stalled.
func partialSources(b *Blackboard, outputs map[string]string, agent string) []string {
	var src []string
	has := func(id string) bool {
		a, ok := b.Agents[id]
		return ok && len(a.Outputs) > 0 || strings.TrimSpace(outputs[id]) != ""
	}
	if agent != "" {
		if has(agent) {
			src = append(src, agent)
		}
		return src
	}
	ids := b.AgentIDs()
	for id := range outputs {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		a, ok := b.Agents[id]
		if (!ok || a.Status == StatusFailed || a.Status == StatusStuck) && has(id) {
			src = append(src, id)
		}
	}
	return src
}

// readAgentOutputs reads the agent_<id>.md files of dir (the first MiB of
// each), by id. Files it cannot read are reported and left out.
func readAgentOutputs(dir string, problem func(string, ...any)) map[string]string {
	out := map[string]string{}
	paths, _ := filepath.Glob(filepath.Join(dir, "agent_*.md")) // the pattern is valid
	for _, p := range paths {
		id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "agent_"), ".md")
		f, err := os.Open(p)
		if err != nil {
			problem("read %s: %v; it is taken as empty", p, err)
			continue
		}
		data, err := io.ReadAll(io.LimitReader(f, maxAgentOutput))
		_ = f.Close()
		if err != nil {
			problem("read %s: %v; it is taken as empty", p, err)
			continue
		}
		out[id] = string(data)
	}
	return out
}
