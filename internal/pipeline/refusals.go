package pipeline

import (
	"fmt"
	"net"
	"strconv"

	"github.com/optr-dev/optr/internal/detect"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/sandbox/proxy"
)

// DetectorNetwork names the finding of a connection the sandbox refused.
const DetectorNetwork = "network"

// refusals are the connections the sandbox refused the processes of r,
// as threat detection's findings on its result (architecture §4.14,
// §4.15): a refusal fails no agent, but an agent that tried to reach what
// it was not given is for a human to see before its result is delivered.
func refusals(r *executor.Result) []detect.Finding {
	var out []detect.Finding
	for _, h := range r.Network {
		if h.Allowed {
			continue
		}
		out = append(out, detect.Finding{Detector: DetectorNetwork, Rule: "refused",
			Reason: fmt.Sprintf("%s tried to reach %s, which the sandbox refused (%s); list it in sandbox.network if the agent needs it", r.Agent, hostPort(h), h.Reason)})
	}
	return out
}

// refusedHosts names the hosts the sandbox refused r's processes, for
// the score table: "refused host:port".
func refusedHosts(r *executor.Result) []string {
	var out []string
	for _, h := range r.Network {
		if !h.Allowed {
			out = append(out, "refused "+hostPort(h))
		}
	}
	return out
}

// hostPort is h's host and port, or the hosts counted together past a
// record's bound.
func hostPort(h proxy.Host) string {
	if h.Host == proxy.OtherHosts {
		return "more hosts"
	}
	return net.JoinHostPort(h.Host, strconv.Itoa(h.Port))
}
