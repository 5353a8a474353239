package checkpoint

import (
	"fmt"
	"io"

	"github.com/optr-dev/optr/internal/ledger"
)

// LearnWindow is how many of the latest decisions on the same trigger
// Recommend learns from.
const LearnWindow = 20

// The reasons Recommend gives when it learned nothing.
const (
	whyConfig  = "from the config (checkpoints.recommend)"
	whyDefault = "default"
)

// Recommend picks the option to recommend at a checkpoint raised for
// trigger that offers options, and says why.
//
// It learns from the ledger read from r (nil: no ledger): of the last
// LearnWindow checkpoints on trigger that were decided, it recommends the
// option chosen most often, the lower number on a tie, saying for example
// "Proceed — chosen in 7 of the last 9 NO_ADMISSIBLE checkpoints".
// Decisions are matched to options by their action, so that a renumbered
// option set still learns the right thing; pause decisions decide nothing
// and are not counted, and only the first decision of each checkpoint is.
//
// Without history it recommends configDefault (checkpoints.recommend; 0
// for none) when options has it, else option 1 ("default").
//
// A ledger that cannot be read is reported as an error together with the
// recommendation from what was read, which the caller may still use: a
// recommendation is advice and should not block a checkpoint.
func Recommend(r io.Reader, trigger Trigger, options []Option, configDefault int) (n int, why string, err error) {
	if len(options) == 0 {
		return 0, "", fmt.Errorf("recommend an option for a %s checkpoint: it has no options", trigger)
	}
	var recent []Action
	if r != nil {
		recent, err = recentDecisions(r, trigger)
	}
	n, why = learned(trigger, options, recent)
	if n == 0 {
		n, why = fallback(options, configDefault)
	}
	return n, why, err
}

// recentDecisions returns the actions of the last LearnWindow closing
// decisions on trigger, oldest first, one per checkpoint.
func recentDecisions(r io.Reader, trigger Trigger) ([]Action, error) {
	var ring [LearnWindow]Action
	count := 0
	decided := map[string]bool{}
	err := scanCheckpoints(r, func(e ledger.Entry) error {
		if e.Kind != ledger.KindDecision || str(e.Fields, fieldTrigger) != string(trigger) {
			return nil
		}
		id := str(e.Fields, fieldCheckpoint)
		d, ok := decodeDecision(e)
		if !ok || !d.Action.Closes() || decided[id] {
			return nil
		}
		decided[id] = true
		ring[count%LearnWindow] = d.Action
		count++
		return nil
	})
	if err != nil {
		err = fmt.Errorf("learn from past %s decisions: %w", trigger, err)
	}
	out := make([]Action, 0, min(count, LearnWindow))
	for i := max(0, count-LearnWindow); i < count; i++ {
		out = append(out, ring[i%LearnWindow])
	}
	return out, err
}

// learned returns the option chosen most often in recent (the lower
// number on a tie) and why, or 0 when recent holds no action that options
// offer.
func learned(trigger Trigger, options []Option, recent []Action) (int, string) {
	counts := map[Action]int{}
	for _, a := range recent {
		counts[a]++
	}
	total := 0
	best := Option{}
	bestCount := 0
	seen := map[Action]bool{}
	for _, o := range options {
		if seen[o.Action] {
			continue // the first option with an action takes its count
		}
		seen[o.Action] = true
		c := counts[o.Action]
		total += c
		if c > bestCount {
			best, bestCount = o, c
		}
	}
	switch {
	case total == 0:
		return 0, ""
	case total == 1:
		return best.N, fmt.Sprintf("%s — chosen in the one earlier %s checkpoint", best.Label, trigger)
	}
	return best.N, fmt.Sprintf("%s — chosen in %d of the last %d %s checkpoints", best.Label, bestCount, total, trigger)
}

// fallback is the recommendation without history.
func fallback(options []Option, configDefault int) (int, string) {
	if configDefault == 0 {
		return options[0].N, whyDefault
	}
	for _, o := range options {
		if o.N == configDefault {
			return o.N, whyConfig
		}
	}
	return options[0].N, fmt.Sprintf("%s; checkpoints.recommend names option %d, but the checkpoint has options %s", whyDefault, configDefault, numbers(options))
}
