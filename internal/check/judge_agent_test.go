package check

import (
	"context"
	"regexp"
	"strings"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
)

var candidateRE = regexp.MustCompile(`(?s)\n<<<BEGIN-([A-Z2-7]+)>>>\n(.*)\n<<<END-([A-Z2-7]+)>>>\n`)

// candidate returns the delimited candidate of a judging prompt, or ok=false
// when the prompt does not hold exactly one well-formed block.
func candidate(prompt string) (string, bool) {
	m := candidateRE.FindAllStringSubmatch(prompt, -1)
	if len(m) != 1 || m[0][1] != m[0][3] {
		return "", false
	}
	return m[0][2], true
}

// ruleJudge is a judge that reads the candidate out of the prompt and passes
// it when it contains want, as a model following the prompt would.
func ruleJudge(name, want string) *agenttest.Agent {
	return agenttest.New(name, func(_ context.Context, req agent.Request) (agent.Response, error) {
		c, ok := candidate(req.Intent)
		switch {
		case !ok:
			return agent.Response{Output: "I cannot find the candidate."}, nil
		case strings.Contains(c, want):
			return agent.Response{Output: `{"pass": true, "reason": "it says ` + want + `"}`}, nil
		default:
			return agent.Response{Output: `{"pass": false, "reason": "it never says ` + want + `"}`}, nil
		}
	})
}
