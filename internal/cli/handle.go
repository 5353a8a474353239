package cli

import (
	"context"
	"time"

	"github.com/optr-dev/optr/internal/escalation"
)

const handleUsage = `optr handle [--coordination-dir DIR] [--watch] [--interval 30s] [--timeout 600s]

Durations take a unit (30s, 5m) or are bare seconds (60), as the seed's
handler takes them.

Handles an escalation on the .coordination protocol: reads escalate.md,
blackboard.json, the last 20 watcher-log.md entries and agent_*.md, decides
(abort, escalate_ceo, restart, synthesize or reassign), writes decision.md,
the blackboard, a watcher-log.md entry and, for escalate_ceo, a ceo-inbox
file, and archives the trigger. One-shot unless --watch. Exits 0 when it
handled something or there was nothing to do.`

func (c *CLI) cmdHandle(ctx context.Context, args []string) error {
	fs := c.flags("handle")
	dir := fs.String("coordination-dir", ".coordination", "the coordination directory")
	watch := fs.Bool("watch", false, "keep polling for new escalations")
	var interval, timeout time.Duration
	fs.Var(newDurationValue(30*time.Second, &interval), "interval", "how often --watch polls (30s, or bare seconds: 30)")
	fs.Var(newDurationValue(600*time.Second, &timeout), "timeout", "how long --watch runs before it stops (600s, or bare seconds: 600)")
	maxFailures := fs.Int("max-failures", 3, "failed agents that make the decision abort")
	maxRestarts := fs.Int("max-restarts", 0, "restarts allowed per agent before restart gives way (0: no limit)")
	if err := c.parse(fs, handleUsage, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr(errArgs("handle", fs.Args()))
	}
	err := escalation.Command(ctx, escalation.CommandOptions{
		Dir: *dir, Watch: *watch, Interval: interval, Timeout: timeout,
		Handle: escalation.HandleOptions{Now: c.Now, Stderr: c.Stderr, MaxFailures: *maxFailures, MaxRestarts: *maxRestarts},
	})
	if err != nil && (interval < 0 || timeout < 0) {
		return usageErr(err)
	}
	return err
}
