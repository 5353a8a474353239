package command

import (
	"log/slog"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/frames"
)

// Bounds on the signals kept from one attempt; the frame parser already
// bounds each one.
const (
	maxSignals      = 1024
	maxSignalsBytes = 1 << 20
)

// collector turns frame events into the Response's signals, TTV and the
// last ERROR frame. It is used from one goroutine, the stdout copier.
type collector struct {
	log      *slog.Logger
	progress func(agent.Progress)

	signals []agent.Signal
	bytes   int
	dropped int
	ttv     time.Duration
	lastErr *frames.Event
}

func (c *collector) event(e frames.Event) {
	if c.progress != nil {
		c.progress(agent.Progress{Frame: string(e.Type)})
	}
	switch e.Type {
	case frames.Result:
		c.ttv = e.TTV
	case frames.Error:
		c.lastErr = &e
	}
	if len(c.signals) >= maxSignals || c.bytes+len(e.Payload) > maxSignalsBytes {
		if c.dropped == 0 {
			c.log.Warn("command agent sent too many control frames and signals; later ones are not kept",
				"limit", maxSignals, "limit_bytes", maxSignalsBytes)
		}
		c.dropped++
		return
	}
	c.bytes += len(e.Payload)
	c.signals = append(c.signals, agent.Signal{Kind: string(e.Type), Payload: e.Payload})
}

func (c *collector) malformed(m frames.Malformed) {
	c.log.Warn("command agent wrote a malformed control frame or signal; it was ignored",
		"reason", m.Reason, "text", m.Excerpt)
}
