package detect

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/optr-dev/optr/internal/agent"
)

// The detectors.
const (
	DetectorSecrets    = "secrets"    // a secret by gitleaks' rules
	DetectorAutomation = "automation" // workflows, git hooks, CI and build entry points
	DetectorExecutable = "executable" // a file made executable
	DetectorBinary     = "binary"     // a binary file
	DetectorEncoded    = "encoded"    // a long encoded blob
	DetectorFetchRun   = "fetch-run"  // code fetched and run (curl … | sh)
	DetectorAgent      = "agent"      // the LLM detector (detection.agent)
	DetectorNetwork    = "network"    // a connection the sandbox refused
	DetectorScan       = "scan"       // the scan itself: what it could not scan or list
)

// Finding is one threat a detector found: what, where and why — never the
// secret itself.
type Finding struct {
	// Detector names the detector (DetectorSecrets, …).
	Detector string `json:"detector"`
	// Rule is the detector's rule: a gitleaks rule id, the kind of path,
	// the LLM detector's flag.
	Rule string `json:"rule"`
	// Path is the file of the patch the finding is in; "" for π*'s output
	// or the result as a whole.
	Path string `json:"path"`
	// Line is the line in that file (in the output when Path is ""), 0
	// when the finding has no line.
	Line int `json:"line"`
	// Reason says what was found, in words.
	Reason string `json:"reason"`
}

// String is the finding on one line, for a log, a message or a table.
func (f Finding) String() string {
	where := "π*'s output"
	if f.Path != "" {
		where = f.Path
	}
	if f.Line > 0 {
		where = fmt.Sprintf("%s line %d", where, f.Line)
	}
	if f.Path == "" && f.Line == 0 && (f.Detector == DetectorAgent || f.Detector == DetectorNetwork || f.Detector == DetectorScan) {
		where = "the result"
	}
	return fmt.Sprintf("%s/%s in %s: %s", f.Detector, f.Rule, where, f.Reason)
}

// Summary lists findings on one line each, at most n of them.
func Summary(findings []Finding, n int) string {
	var b strings.Builder
	for i, f := range findings {
		if i == n {
			fmt.Fprintf(&b, "… and %d more\n", len(findings)-n)
			break
		}
		b.WriteString("- " + f.String() + "\n")
	}
	return b.String()
}

// Verdict is what detection concluded for the run's delivery.
type Verdict string

// The verdicts (the ledger's detection.verdict).
const (
	// Clean: nothing found.
	Clean Verdict = "clean"
	// Warn: found, and delivered with the findings shown.
	Warn Verdict = "warn"
	// Blocked: found, and nothing delivered.
	Blocked Verdict = "blocked"
)

// Result is a scan of one result: its findings, and what the LLM detector
// used (its tokens count in the run's totals).
type Result struct {
	Findings []Finding `json:"findings"`
	// Usage is the LLM detector's token use, zero without one.
	Usage agent.Usage `json:"usage"`
}

// Refused is the finding for connections an agent's sandbox refused to
// host:port (architecture §4.14): a detection finding on that agent's
// result, never a failure by itself.
// The seccomp layer's refusals of a Unix socket ("unix:/path", port 0)
// and of a signal ("pid:N", "pgid:N") are findings too, of their own.
func Refused(host string, port, requests int) Finding {
	what := "a connection"
	if requests > 1 {
		what = fmt.Sprintf("%d connections", requests)
	}
	switch {
	case strings.HasPrefix(host, "pid:"), strings.HasPrefix(host, "pgid:"):
		what = "a signal"
		if requests > 1 {
			what = fmt.Sprintf("%d signals", requests)
		}
		return Finding{DetectorNetwork, "refused-signal", "", 0,
			fmt.Sprintf("the sandbox refused %s to %s, a process not the agent's own", what, strings.Replace(host, ":", " ", 1))}
	case port == 0:
		return Finding{DetectorNetwork, "refused-connection", "", 0,
			fmt.Sprintf("the sandbox refused %s to %s, a socket not the agent's own", what, host)}
	}
	return Finding{DetectorNetwork, "refused-connection", "", 0,
		fmt.Sprintf("the sandbox refused %s to %s, which sandbox.network does not allow", what, net.JoinHostPort(host, strconv.Itoa(port)))}
}
