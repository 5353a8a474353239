package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/optr-dev/optr/internal/ledger"
)

// ErrNotFound is returned by Status for a checkpoint the ledger does not
// hold.
var ErrNotFound = errors.New("checkpoint not found in the ledger")

// Status reads the ledger from r and says whether checkpoint id is open.
// It is open when a checkpoint entry for it exists and no decision entry
// after it closes it; a pause decision leaves it open. decision is the
// decision that closed it or, while it is open, the last pause decision
// (nil when there is none). A checkpoint the ledger does not hold is an
// error wrapping ErrNotFound.
//
// Status, Pending, Last and Recommend decode only the lines that can be
// checkpoint or decision entries, so they stay fast on a ledger of many
// runs; they do not verify the ledger (ledger.Verify does).
func Status(r io.Reader, id string) (open bool, decision *Decision, err error) {
	all, err := states(r)
	if err != nil {
		return false, nil, fmt.Errorf("read the status of checkpoint %s from the ledger: %w", id, err)
	}
	for _, s := range all {
		if s.id == id {
			return s.open(), s.decision, nil
		}
	}
	return false, nil, fmt.Errorf("checkpoint %s: %w; check the id, or that the ledger holds the run that raised it", id, ErrNotFound)
}

// Pending reads the ledger from r and returns the ids of workflow's open
// checkpoints, oldest first (open as Status says). It is how an answer on
// an issue (/optr choose N), which names no checkpoint, finds the one it
// answers: the last of them.
func Pending(r io.Reader, workflow string) ([]string, error) {
	all, err := states(r)
	if err != nil {
		return nil, fmt.Errorf("find the open checkpoints of workflow %s in the ledger: %w", workflow, err)
	}
	var out []string
	for _, s := range all {
		if s.workflow == workflow && s.open() {
			out = append(out, s.id)
		}
	}
	return out, nil
}

// Last reads the ledger from r and returns the id of workflow's most
// recent checkpoint, open or decided, or "" when it has none. An answer
// that finds nothing Pending uses it to name the checkpoint that was
// already decided.
func Last(r io.Reader, workflow string) (string, error) {
	all, err := states(r)
	if err != nil {
		return "", fmt.Errorf("find the last checkpoint of workflow %s in the ledger: %w", workflow, err)
	}
	last := ""
	for _, s := range all {
		if s.workflow == workflow {
			last = s.id
		}
	}
	return last, nil
}

// state is one checkpoint as the ledger records it.
type state struct {
	id, workflow string
	// decision is the decision that closed it, else the last pause.
	decision *Decision
}

// open reports whether no decision closed the checkpoint.
func (s *state) open() bool { return s.decision == nil || !s.decision.Action.Closes() }

// states folds the ledger from r into the checkpoints it raised, in the
// order they were raised: the one reading of "is this checkpoint still
// open" (architecture §4.6) behind Status, Pending and Last, so that the CLI,
// which names a checkpoint, and an answer on an issue, which finds the
// workflow's, always agree. A decision counts only after its checkpoint
// was raised; the first decision that closes it stands; a malformed
// decision is ignored.
func states(r io.Reader) ([]*state, error) {
	var order []*state
	byID := map[string]*state{}
	err := scanCheckpoints(r, func(e ledger.Entry) error {
		id := str(e.Fields, fieldCheckpoint)
		if id == "" {
			return nil
		}
		s := byID[id]
		switch e.Kind {
		case ledger.KindCheckpoint:
			if s == nil {
				s = &state{id: id, workflow: e.Workflow}
				byID[id] = s
				order = append(order, s)
			}
		case ledger.KindDecision:
			if s == nil || !s.open() {
				return nil // not raised yet, or decided already
			}
			if d, ok := decodeDecision(e); ok {
				s.decision = &d
			}
		}
		return nil
	})
	return order, err
}

// decodeDecision reads a decision entry; ok is false when it does not hold
// a positive option number and a known action.
func decodeDecision(e ledger.Entry) (Decision, bool) {
	n, ok := integer(e.Fields, fieldOption)
	d := Decision{
		Option: n,
		Action: Action(str(e.Fields, fieldAction)),
		By:     str(e.Fields, fieldBy),
		Note:   str(e.Fields, fieldNote),
		Source: str(e.Fields, fieldSource),
	}
	return d, ok && n >= 1 && d.Action.Valid()
}

// str returns the string member name of fields, "" when it is missing or
// not a string.
func str(fields map[string]any, name string) string {
	s, _ := fields[name].(string)
	return s
}

// integer returns the integer member name of fields. Scan decodes numbers
// as json.Number; the other cases cover fields built in memory.
func integer(fields map[string]any, name string) (int, bool) {
	switch v := fields[name].(type) {
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 32)
		return int(n), err == nil
	case int:
		return v, true
	case float64:
		n := int(v)
		return n, float64(n) == v
	}
	return 0, false
}
