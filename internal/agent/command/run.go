package command

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/procgroup"
	"github.com/optr-dev/optr/internal/program"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/frames"
	"github.com/optr-dev/optr/internal/sandbox"
	"github.com/optr-dev/optr/internal/sandbox/proxy"
	"github.com/optr-dev/optr/internal/spool"
)

// errOutputTooLarge stops an attempt whose stdout passed MaxOutput.
var errOutputTooLarge = errors.New("stdout passed its limit")

// Run performs one attempt: it starts the command, feeds it the intent,
// reads its output and frames, and waits for it to end, within the agent's
// timeout and ctx. See the package documentation for what the command gets.
//
// A failed attempt returns an *agent.Error: Fatal "bad_config" when the
// program cannot be started, Transient "timeout" when the timeout passed,
// Systematic "output_too_large" past MaxOutput, and Systematic
// "exit_status" (or the code of the last ERROR frame) on a non-zero exit.
// An ERROR frame fails an attempt that exits 0 too (reason: its code, else
// "error_frame"); it is also in the Signals. When ctx ends first, Run
// returns ctx's error and the caller decides. The Response always holds
// what was captured.
//
// A connection the sandbox refused fails nothing by itself: it is in
// Response.Network, and a failed attempt's message names the refused
// hosts first, as the likely cause.
func (a *Agent) Run(ctx context.Context, req agent.Request) (agent.Response, error) {
	resp := agent.Response{ExitCode: -1}
	env := a.environ(req)
	gw := a.openGateway(ctx, req)
	defer gw.close() // after the sandbox's Finish: no request comes later
	var launch *sandbox.Launch
	if a.opts.Sandbox != nil {
		p := a.process(req)
		gw.local(&p)
		var err error
		if launch, err = a.opts.Sandbox.Command(p); err != nil {
			return resp, &agent.Error{Class: agent.Fatal, Reason: "sandbox", Err: err}
		}
		defer launch.Finish()
		env = withoutEmptyFeedback(launch.Env(), req)
	}
	env, err := gw.env(env, launch)
	if err != nil {
		return resp, &agent.Error{Class: agent.Fatal, Reason: "gateway", Err: err}
	}
	var pre *presetRun
	if a.preset != nil {
		if pre, env, err = a.startPreset(env, launch); err != nil {
			return resp, &agent.Error{Class: agent.Fatal, Reason: "preset", Err: err}
		}
		defer pre.close()
	}
	path, err := program.Resolve(a.argv[0], req.Dir, getenv(env, "PATH"))
	if err != nil {
		return resp, &agent.Error{Class: agent.Fatal, Reason: "bad_config",
			Err: fmt.Errorf("agents.%s.run: cannot run %s: %w", a.name, a.argv[0], err)}
	}

	attemptCtx, cancelTimeout := ctx, context.CancelFunc(func() {})
	if a.timeout > 0 {
		attemptCtx, cancelTimeout = context.WithTimeout(ctx, a.timeout)
	}
	defer cancelTimeout()
	attemptCtx, stop := context.WithCancelCause(attemptCtx)
	defer stop(nil)

	log := a.opts.Logger.With("agent", a.name)
	col := &collector{log: log, progress: req.Progress}
	stdout := spool.New(spool.Options{
		Dir: req.SpoolDir, Prefix: a.name + "-", Suffix: ".out",
		Max: int64(a.opts.MaxOutput), InMemory: a.opts.InMemory, Redactor: a.opts.Redactor,
		OnOver: func() { stop(errOutputTooLarge) },
	})
	first := &firstOutput{w: stdout, start: time.Now()}
	parser := frames.New(first, frames.Options{OnEvent: col.event, OnMalformed: col.malformed})
	stderr := &tailBuffer{max: a.opts.MaxStderr, redact: a.opts.Redactor}

	cmd := exec.CommandContext(attemptCtx, path, a.argv[1:]...)
	cmd.Args[0] = a.argv[0]
	cmd.Dir = req.Dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader(req.Intent)
	cmd.Stdout = progressWriter{w: parser, progress: req.Progress}
	if pre != nil {
		// A preset's CLI writes events; its answer, read from them, is
		// the output.
		cmd.Stdout = progressWriter{w: pre, progress: req.Progress}
	}
	cmd.Stderr = progressWriter{w: stderr, progress: req.Progress}
	grp := procgroup.New(cmd, a.opts.KillGrace)

	if err := start(attemptCtx, launch, cmd); err != nil {
		grp.Finish()
		if ctx.Err() != nil {
			return resp, fmt.Errorf("command agent %s not started: %w", a.name, ctx.Err())
		}
		class, reason := startFailure(err)
		if se := (*sandbox.StartError)(nil); errors.As(err, &se) {
			class, reason = agent.Fatal, "sandbox"
		}
		return resp, &agent.Error{Class: class, Reason: reason,
			Err: fmt.Errorf("start %s in %q: %w", a.argv[0], req.Dir, err)}
	}
	if req.Sent != nil {
		req.Sent()
	}
	waitErr := cmd.Wait()
	leftovers := errors.Is(waitErr, exec.ErrWaitDelay)
	grp.Finish()
	if pre != nil {
		session, kept, err := pre.finish(outputDir(req), a.name)
		if err != nil {
			log.Warn("the transcript of a preset's CLI could not be kept", "error", err)
		} else if kept != "" {
			log.Debug("kept the transcript of a preset's CLI", "file", kept)
		}
		resp.Session = &session
		_, _ = parser.Write([]byte(session.Answer))
	}
	_ = parser.Close() // a spool.Writer never fails a write
	kept, err := stdout.Close()
	if err != nil {
		return resp, &agent.Error{Class: agent.Fatal, Reason: "output_not_kept",
			Err: fmt.Errorf("keep the output of %s in %s: %w", a.argv[0], req.SpoolDir, err)}
	}

	resp.Output, resp.Spool = kept.Text, kept.File
	resp.Stderr = stderr.String()
	resp.Signals = col.signals
	resp.TTV, resp.FirstOutput = col.ttv, first.after()
	if cmd.ProcessState != nil {
		resp.ExitCode = cmd.ProcessState.ExitCode()
	}
	if leftovers {
		log.Warn("command agent left processes holding stdout or stderr open after it ended; they were killed", "waited", a.opts.KillGrace)
	}
	if launch != nil {
		// A refused connection is recorded (resp.Network), never a failure
		// by itself: real agents phone home and carry on when refused
		// (architecture §4.14).
		resp.Network, _ = launch.Finish()
	}
	err = refusedFirst(a.failure(ctx, attemptCtx, waitErr, leftovers, &resp, col), resp.Network)
	err = gw.meter(ctx, &resp, a.argv[0], err)
	if a.model == "" && resp.Model == "" {
		resp.Model = mainModel(resp.Calls)
	}
	return resp, err
}

// start starts cmd, through launch when the attempt is sandboxed.
func start(ctx context.Context, launch *sandbox.Launch, cmd *exec.Cmd) error {
	if launch == nil {
		return cmd.Start()
	}
	return launch.Start(ctx, cmd)
}

// failure classifies how an attempt ended; nil means success.
func (a *Agent) failure(ctx, attemptCtx context.Context, waitErr error, leftovers bool, resp *agent.Response, col *collector) error {
	if errors.Is(context.Cause(attemptCtx), errOutputTooLarge) {
		return agent.Errorf(agent.Systematic, "output_too_large",
			"%s wrote more than %d bytes to stdout, so it was stopped and only the first %d bytes kept; have it write large results to $OPTR_OUTPUT_DIR instead",
			a.argv[0], a.opts.MaxOutput, a.opts.MaxOutput)
	}
	if waitErr == nil || leftovers {
		// An agent that reports an error has failed, whatever its exit
		// status says.
		if e := col.lastErr; e != nil {
			reason := reasonFromCode(e.Code)
			if reason == "" {
				reason = "error_frame"
			}
			return agent.Errorf(agent.Systematic, reason, "%s exited with status 0 but sent an ERROR frame that said %s%s",
				a.argv[0], strings.TrimSpace(e.Code+" "+e.Message), stderrNote(resp.Stderr))
		}
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("command agent %s stopped: %w", a.name, err)
	}
	if errors.Is(attemptCtx.Err(), context.DeadlineExceeded) {
		return agent.Errorf(agent.Transient, "timeout",
			"%s gave no result within %s, so its processes were stopped; raise agents.%s.attempt-timeout (or timeout) if it needs longer%s",
			a.argv[0], a.timeout, a.name, stderrNote(resp.Stderr))
	}
	var exit *exec.ExitError
	if !errors.As(waitErr, &exit) {
		return agent.Errorf(agent.Systematic, "wait_failed", "wait for %s: %w", a.argv[0], waitErr)
	}
	how := fmt.Sprintf("exited with status %d", exit.ExitCode())
	if exit.ExitCode() < 0 {
		how = "was killed: " + exit.String()
	}
	reason, said := "exit_status", ""
	if e := col.lastErr; e != nil {
		if r := reasonFromCode(e.Code); r != "" {
			reason = r
		}
		said = fmt.Sprintf("; its last ERROR frame said %s", strings.TrimSpace(e.Code+" "+e.Message))
	}
	if s := resp.Session; said == "" && s != nil && s.Error != "" {
		said = "; it reported: " + strings.TrimSpace(s.Error)
	}
	return agent.Errorf(agent.Systematic, reason, "%s %s%s%s", a.argv[0], how, said, stderrNote(resp.Stderr))
}

// maxRefusedNamed bounds the refused hosts a failure names.
const maxRefusedNamed = 3

// refusedFirst puts the hosts the sandbox refused the attempt before the
// failure err, as its likely cause: an agent that could not reach its
// model fails by its exit status or timeout, and its stderr rarely says
// why. err is returned as it is when it is nil, not an *agent.Error, or
// nothing was refused.
func refusedFirst(err error, network []proxy.Host) error {
	var ae *agent.Error
	if err == nil || !errors.As(err, &ae) {
		return err
	}
	var refused []string
	for _, h := range network {
		if h.Allowed {
			continue
		}
		if len(refused) == maxRefusedNamed {
			refused = append(refused, "…")
			break
		}
		where := h.Host
		if h.Host != proxy.OtherHosts {
			where = net.JoinHostPort(h.Host, strconv.Itoa(h.Port))
		}
		refused = append(refused, fmt.Sprintf("%s (%s)", where, h.Reason))
	}
	if len(refused) == 0 {
		return err
	}
	return &agent.Error{Class: ae.Class, Reason: ae.Reason, Status: ae.Status, RetryAfter: ae.RetryAfter,
		Err: fmt.Errorf("the sandbox refused its connections to %s, the likely cause: list what the agent must reach in sandbox.network; %w",
			strings.Join(refused, ", "), ae.Err)}
}

// maxNote bounds the stderr quoted in an error message.
const maxNote = 2 << 10

// stderrNote quotes the end of stderr for an error message.
func stderrNote(stderr string) string {
	s := strings.TrimSpace(stderr)
	if s == "" {
		return "; stderr was empty"
	}
	if len(s) > maxNote {
		s = s[len(s)-maxNote:]
		s = "…" + s[spool.Start([]byte(s)):]
	}
	return agent.StderrNote + s
}

// reasonFromCode turns an ERROR frame's code into an Error reason:
// lower-case letters, digits and '_', at most 64 bytes.
func reasonFromCode(code string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(code)) {
		if b.Len() >= 64 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return strings.Trim(b.String(), "_")
}
