package delegate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/optr-dev/optr/internal/extract"
	"github.com/optr-dev/optr/internal/markdown"
)

// Topic is one planned topic.
type Topic struct {
	// Topic names what the specialist researches (untrusted text from the
	// coordinator, one line).
	Topic string `json:"topic"`
	// Focus says what to look at, optional.
	Focus string `json:"focus,omitempty"`
}

// Line signals of a command coordinator (architecture §4.9 step 2).
const (
	SignalPlanReady = "INVOCATION_PLAN_READY"
	SignalComplete  = "RESEARCH_COORDINATOR_COMPLETE"
)

// Reasons a plan is refused: each is the agent.Error reason of the
// coordinator's failure and the error_type of its errors.jsonl line.
const (
	ReasonPlanMissing      = "plan_missing"
	ReasonPlanMalformed    = "plan_malformed"
	ReasonPlanEmpty        = "plan_empty"
	ReasonPlanTooLong      = "plan_too_long"
	ReasonPlanDuplicate    = "plan_duplicate_topic"
	ReasonPlanEmptySlug    = "plan_empty_slug"
	ReasonPlanBadTopic     = "plan_bad_topic"
	ReasonPlanIncomplete   = "plan_incomplete"
	ReasonCoordinatorError = "coordinator_failed"
)

// PlanError is a plan optr refuses, with the reason (one of the ReasonPlan*
// constants) and what to do about it.
type PlanError struct {
	Reason string
	Msg    string
}

// Error implements error.
func (e *PlanError) Error() string { return e.Msg }

func planErr(reason, format string, args ...any) *PlanError {
	return &PlanError{Reason: reason, Msg: fmt.Sprintf(format, args...)}
}

// maxTopicLen bounds a topic's length in characters.
const maxTopicLen = 200

// ParsePlan reads the coordinator's plan from its output. An LLM
// coordinator (llm true) answers a JSON object {"topics":[…]}; a command
// coordinator prints the line "INVOCATION_PLAN_READY: N", then a JSON array
// of N topics, then the line "RESEARCH_COORDINATOR_COMPLETE: SUCCESS".
// The plan must hold 1 to maxTopics topics, each a single line with a
// distinct, non-empty slug. Every refusal is a *PlanError.
func ParsePlan(output string, llm bool, maxTopics int) ([]Topic, error) {
	var topics []Topic
	var err error
	if llm {
		topics, err = parseLLMPlan(output)
	} else {
		topics, err = parseCommandPlan(output)
	}
	if err != nil {
		return nil, err
	}
	return topics, checkTopics(topics, maxTopics)
}

// planObject decodes only an object that has "topics", so that
// extract.Object moves past other objects in the text.
type planObject struct{ Topics []Topic }

// UnmarshalJSON implements json.Unmarshaler.
func (p *planObject) UnmarshalJSON(b []byte) error {
	var m struct {
		Topics *[]Topic `json:"topics"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m.Topics == nil {
		return errors.New(`no "topics"`)
	}
	p.Topics = *m.Topics
	return nil
}

func parseLLMPlan(output string) ([]Topic, error) {
	if strings.TrimSpace(output) == "" {
		return nil, planErr(ReasonPlanMissing, "the coordinator answered nothing; it must answer a JSON object {\"topics\":[{\"topic\":\"…\",\"focus\":\"…\"}]}")
	}
	var p planObject
	if err := extract.Object(output, &p); err != nil {
		return nil, planErr(ReasonPlanMalformed, "the coordinator's answer holds no JSON object with a \"topics\" list of {\"topic\",\"focus\"} objects")
	}
	return p.Topics, nil
}

func parseCommandPlan(output string) ([]Topic, error) {
	lines := strings.Split(output, "\n")
	ready, complete := -1, -1
	for i, l := range lines {
		l = strings.TrimSpace(l)
		switch {
		case ready < 0 && strings.HasPrefix(l, SignalPlanReady+":"):
			ready = i
		case ready >= 0 && strings.HasPrefix(l, SignalComplete+":"):
			complete = i
		}
		if complete >= 0 {
			break
		}
	}
	if ready < 0 {
		return nil, planErr(ReasonPlanMissing, "the coordinator printed no %s: N line; it must print that line, then a JSON array of topics, then %s: SUCCESS", SignalPlanReady, SignalComplete)
	}
	nText := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[ready]), SignalPlanReady+":"))
	n, err := strconv.Atoi(nText)
	if err != nil || n < 0 {
		return nil, planErr(ReasonPlanMalformed, "%s: %q does not give a number of topics", SignalPlanReady, nText)
	}
	if complete < 0 {
		return nil, planErr(ReasonPlanIncomplete, "the coordinator did not confirm its plan: no %s: SUCCESS line after %s", SignalComplete, SignalPlanReady)
	}
	if status := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[complete]), SignalComplete+":")); status != "SUCCESS" {
		return nil, planErr(ReasonPlanIncomplete, "the coordinator ended with %s: %s, not SUCCESS", SignalComplete, markdown.OneLine(status, 80))
	}
	body := bytes.TrimSpace([]byte(strings.Join(lines[ready+1:complete], "\n")))
	var topics []Topic
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&topics); err != nil || dec.More() || len(body) == 0 || body[0] != '[' {
		return nil, planErr(ReasonPlanMalformed, "the lines between %s and %s are not one JSON array of {\"topic\",\"focus\"} objects", SignalPlanReady, SignalComplete)
	}
	if len(topics) != n {
		return nil, planErr(ReasonPlanMalformed, "%s announced %d topics but the array lists %d", SignalPlanReady, n, len(topics))
	}
	return topics, nil
}

// checkTopics applies the rules every plan follows, whatever its form.
func checkTopics(topics []Topic, maxTopics int) error {
	switch {
	case len(topics) == 0:
		return planErr(ReasonPlanEmpty, "the coordinator planned no topics; a plan needs 1 to %d", maxTopics)
	case len(topics) > maxTopics:
		return planErr(ReasonPlanTooLong, "the coordinator planned %d topics, more than max-topics (%d)", len(topics), maxTopics)
	}
	seen := map[string]int{}
	for i, t := range topics {
		k := i + 1
		switch {
		case strings.IndexFunc(t.Topic, unicode.IsControl) >= 0 || strings.IndexFunc(t.Focus, isLineBreak) >= 0:
			return planErr(ReasonPlanBadTopic, "topic %d holds a tab, line break or control character; a topic is one line", k)
		case len([]rune(t.Topic)) > maxTopicLen:
			return planErr(ReasonPlanBadTopic, "topic %d is %d characters long; at most %d are allowed", k, len([]rune(t.Topic)), maxTopicLen)
		}
		slug := Slug(t.Topic)
		if slug == "" {
			return planErr(ReasonPlanEmptySlug, "topic %d (%q) has no letters or digits to name its report file", k, markdown.OneLine(t.Topic, 80))
		}
		if j, ok := seen[slug]; ok {
			return planErr(ReasonPlanDuplicate, "topics %d and %d are the same topic (%q); every topic must differ", j, k, slug)
		}
		seen[slug] = k
	}
	return nil
}

func isLineBreak(r rune) bool { return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' }

// maxSlugLen bounds a topic slug, so that report file names stay short.
const maxSlugLen = 48

// Slug turns a topic into a file-name part: lowercase ASCII letters and
// digits, every other run of characters one '-', at most 48 characters,
// no leading or trailing '-'. It is empty when the topic has no ASCII
// letter or digit.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	out := b.String()
	if len(out) > maxSlugLen {
		out = strings.TrimRight(out[:maxSlugLen], "-")
	}
	return out
}
