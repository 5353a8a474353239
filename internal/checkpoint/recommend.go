package checkpoint

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/markdown"
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
	return RecommendWith(r, trigger, options, configDefault, Track{})
}

// Track is what people did lately with the pull requests of the agent
// whose result the checkpoint's Proceed option takes (architecture §4.19):
// how many they merged, how many they closed unmerged.
type Track struct {
	Agent          string
	Merged, Closed int
}

// leaning says which way the track points: 1 when people merged more of
// the agent's changes than they closed, -1 when they closed more, 0 when
// it says nothing.
func (t Track) leaning() int {
	switch {
	case t.Agent == "" || t.Merged == t.Closed:
		return 0
	case t.Merged > t.Closed:
		return 1
	}
	return -1
}

// String says the track in numbers: "codex's pull requests: 1 of 4 merged
// lately".
func (t Track) String() string {
	return fmt.Sprintf("%s's pull requests: %d of %d merged lately", markdown.OneLine(t.Agent, 40), t.Merged, t.Merged+t.Closed)
}

// RecommendWith is Recommend, taking what people did with the changes of
// the agent Proceed delivers (track) into account: where the past
// decisions do not settle it — none were made, or Proceed and another
// option were chosen as often — an agent whose pull requests were mostly
// closed unmerged does not get Proceed recommended over Skip, and one
// whose pull requests were mostly merged does, saying why in numbers
// ("Skip — codex's pull requests: 1 of 4 merged lately"). A
// recommendation from the config (checkpoints.recommend) stands; its
// reason gains the numbers.
func RecommendWith(r io.Reader, trigger Trigger, options []Option, configDefault int, track Track) (n int, why string, err error) {
	if len(options) == 0 {
		return 0, "", fmt.Errorf("recommend an option for a %s checkpoint: it has no options", trigger)
	}
	var recent []Action
	if r != nil {
		recent, err = recentDecisions(r, trigger)
	}
	n, why = learned(trigger, options, recent, track)
	if n == 0 {
		n, why = fallback(options, configDefault, track)
	}
	return n, why, err
}

// withTrack adds the track to a reason that recommends o, when it says
// something: why a recommendation stands or was turned by it.
func withTrack(o Option, why string, track Track) string {
	if track.leaning() == 0 || (o.Action != ActionProceed && o.Action != ActionSkip) {
		return why
	}
	return why + "; " + track.String()
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

// learned returns the option chosen most often in recent and why, or 0
// when recent holds no action that options offer. A tie goes by the
// track when Proceed is one of the options tied and the track leans
// (Proceed when the agent's changes were mostly merged, the other
// option when mostly closed), else to the lower number.
func learned(trigger Trigger, options []Option, recent []Action, track Track) (int, string) {
	counts := map[Action]int{}
	for _, a := range recent {
		counts[a]++
	}
	total := 0
	best := Option{}
	bestCount := 0
	var tied []Option // the options with bestCount, in order
	seen := map[Action]bool{}
	for _, o := range options {
		if seen[o.Action] {
			continue // the first option with an action takes its count
		}
		seen[o.Action] = true
		c := counts[o.Action]
		total += c
		switch {
		case c > bestCount:
			best, bestCount, tied = o, c, []Option{o}
		case c == bestCount && c > 0:
			tied = append(tied, o)
		}
	}
	if total == 0 {
		return 0, ""
	}
	why := func(o Option) string {
		if total == 1 {
			return fmt.Sprintf("%s — chosen in the one earlier %s checkpoint", o.Label, trigger)
		}
		return fmt.Sprintf("%s — chosen in %d of the last %d %s checkpoints", o.Label, bestCount, total, trigger)
	}
	if len(tied) > 1 && slices.ContainsFunc(tied, func(o Option) bool { return o.Action == ActionProceed }) && track.leaning() != 0 {
		for _, o := range tied {
			if (o.Action == ActionProceed) == (track.leaning() > 0) {
				return o.N, fmt.Sprintf("%s — chosen as often as %s in the last %d %s checkpoints (%d each); %s",
					o.Label, otherLabels(tied, o), total, trigger, bestCount, track)
			}
		}
	}
	return best.N, withTrack(best, why(best), track)
}

// otherLabels names the options of tied other than o.
func otherLabels(tied []Option, o Option) string {
	var out []string
	for _, t := range tied {
		if t.N != o.N {
			out = append(out, t.Label)
		}
	}
	return strings.Join(out, " and ")
}

// fallback is the recommendation without past decisions: the config's,
// else where the track leans (Skip for an agent whose changes were
// mostly closed, Proceed for one whose were mostly merged), else option
// 1.
func fallback(options []Option, configDefault int, track Track) (int, string) {
	if configDefault != 0 {
		for _, o := range options {
			if o.N == configDefault {
				return o.N, withTrack(o, whyConfig, track)
			}
		}
		return options[0].N, fmt.Sprintf("%s; checkpoints.recommend names option %d, but the checkpoint has options %s", whyDefault, configDefault, numbers(options))
	}
	if l := track.leaning(); l != 0 {
		want := ActionProceed
		if l < 0 {
			want = ActionSkip
		}
		for _, o := range options {
			if o.Action == want {
				return o.N, o.Label + " — " + track.String()
			}
		}
	}
	return options[0].N, whyDefault
}
