package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	copilot "github.com/github/copilot-sdk/go"
	"github.com/github/copilot-sdk/go/rpc"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/provider"
	"github.com/optr-dev/optr/internal/sandbox"
	"github.com/optr-dev/optr/internal/sandbox/env"
)

// cliProxyVars are how the Copilot CLI reaches the network, passed on
// from optr's environment beside the sandbox's base (env.FromGetenv).
// Keys and tokens are never among them: the Copilot token goes through
// the SDK's own variable, and HOME is the attempt's own directory.
var cliProxyVars = []string{"HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy"}

// copilotSetup is what one copilot agent needs for each attempt.
type copilotSetup struct {
	b     *base
	cli   string
	token string
	// byok is the BYOK endpoint, nil for Copilot's own models.
	byok *copilot.ProviderConfig
	env  []string
	tmp  string
}

func init() { register(provider.Copilot, newCopilot) }

// newCopilot returns the caller for the copilot provider: GitHub Copilot
// through the Copilot CLI, driven by the official Go SDK. Each attempt
// starts the CLI, opens one session with no tools and the prompt as its
// system message, sends the intent, and stops the CLI.
//
// Without the CLI, or without a token for Copilot's own models, the agent
// is still built: its Preflight reports agent.Unusable and every attempt
// fails at once with it, so a run whose other agents work goes on without
// it, and a run where nothing is usable says what to add
// (agent.UnusableComment).
func newCopilot(b *base, p provider.Provider, cfg config.Agent, getenv func(string) string) (caller, error) {
	s := &copilotSetup{b: b, tmp: getenv("TMPDIR"), env: env.FromGetenv(getenv)}
	for _, name := range cliProxyVars {
		if v := getenv(name); v != "" {
			s.env = append(s.env, name+"="+v)
		}
	}
	if cfg.BYOK != "" {
		if err := s.setBYOK(cfg, getenv); err != nil {
			return nil, err
		}
	} else {
		// The GitHub token, from the registry's variables in order (the
		// token meant for Copilot, a developer's gh token, the
		// workflow's token) when api-key-env names none.
		vars := p.KeyEnv
		if cfg.APIKeyEnv != "" {
			vars = []string{cfg.APIKeyEnv}
		}
		for _, v := range vars {
			if s.token = getenv(v); s.token != "" {
				b.secret, b.keyVar = s.token, v
				break
			}
		}
		b.copilotAuth = true
		if s.token == "" {
			return unusable(b, fmt.Sprintf("no GitHub token for Copilot: %s is empty; in GitHub Actions the workflow's token is used, locally set COPILOT_GITHUB_TOKEN or GH_TOKEN", strings.Join(vars, ", "))), nil
		}
	}
	cli, err := findCopilotCLI(getenv)
	if err != nil {
		return unusable(b, err.Error()), nil
	}
	s.cli = cli
	return s.call, nil
}

// setBYOK configures a bring-your-own-key endpoint, which needs no GitHub
// auth: base-url, a model and the key of that kind.
func (s *copilotSetup) setBYOK(cfg config.Agent, getenv func(string) string) error {
	b := s.b
	if err := requireModel(b.name, cfg); err != nil {
		return err
	}
	if cfg.BaseURL == "" {
		return badConfig("agent %q (copilot, byok %s): no base-url; add the endpoint's base URL", b.name, cfg.BYOK)
	}
	if _, err := checkEndpoint(b.name, cfg.Provider, cfg.BaseURL, "base-url"); err != nil {
		return err
	}
	endpoint, ok := provider.ForBYOK(cfg.BYOK)
	if !ok {
		return badConfig("agent %q (copilot): byok %q is not one of openai, azure, anthropic", b.name, cfg.BYOK)
	}
	key, keyVar, err := apiKey(b.name, cfg, getenv, endpoint.KeyEnv, false)
	if err != nil {
		return err
	}
	b.secret, b.keyVar = key, keyVar
	s.byok = &copilot.ProviderConfig{
		Type:            cfg.BYOK,
		BaseURL:         cfg.BaseURL,
		APIKey:          key,
		MaxOutputTokens: int(b.maxTokens),
	}
	if cfg.BYOK == config.BYOKAzure {
		s.byok.Azure = &copilot.AzureProviderOptions{APIVersion: cfg.APIVersion}
	}
	return nil
}

// unusable marks the agent unusable here because of problem (see
// base.unusable) and returns the caller that fails every attempt with it.
func unusable(b *base, problem string) caller {
	b.unusable = agent.Unusable(b.name, b.provider, problem)
	return func(context.Context, prompt, **http.Response) (completion, error) { return completion{}, b.unusable }
}

// call is one attempt: start the CLI, one session, one message.
func (s *copilotSetup) call(ctx context.Context, p prompt, raw **http.Response) (_ completion, err error) {
	if !s.b.sandbox.Off() {
		cli, finish, cerr := s.confined(ctx, p.worktree)
		if cerr != nil {
			return completion{}, cerr
		}
		defer func() { err = finish(err) }()
		return s.session(ctx, p, raw, cli)
	}
	home, err := os.MkdirTemp(s.tmp, "optr-copilot-*")
	if err != nil {
		return completion{}, fmt.Errorf("copilot: make a state directory: %w", err)
	}
	defer os.RemoveAll(home)
	// A coding agent works in its worktree; a text agent in an empty
	// directory: it reads no repository instructions and has no files to
	// act on.
	work := p.worktree
	if work == "" {
		if work, err = os.MkdirTemp(s.tmp, "optr-copilot-work-*"); err != nil {
			return completion{}, fmt.Errorf("copilot: make a working directory: %w", err)
		}
		defer os.RemoveAll(work)
	}
	return s.session(ctx, p, raw, cliStart{path: s.cli, env: append(slices.Clip(s.env), "HOME="+home, "TMPDIR="+home), home: home, work: work})
}

// cliStart is how one attempt starts the CLI: the executable and the
// environment the SDK is given, the CLI's state directory and its
// working directory.
type cliStart struct {
	path       string
	env        []string
	home, work string
}

// confined starts the CLI of one attempt through the sandbox (package
// sandbox, Launch.Delegate): Landlock, the network namespace behind the
// egress proxy, the unprivileged user, as a command agent. Its HOME is
// the sandbox's directory of its own, which is also a text agent's empty
// working directory. finish ends the confinement and turns what the
// sandbox stopped into the attempt's failure.
func (s *copilotSetup) confined(ctx context.Context, worktree string) (cliStart, func(error) error, error) {
	launch, err := s.b.sandbox.Command(sandbox.Process{
		Name: s.b.name, Dir: worktree, WriteDir: worktree != "",
		// The CLI's own files, wherever OPTR_COPILOT_CLI put them.
		Read: []string{filepath.Dir(s.cli)},
	})
	if err != nil {
		return cliStart{}, nil, &agent.Error{Class: agent.Fatal, Reason: "sandbox", Err: err}
	}
	path, environ, err := launch.Delegate(ctx, s.cli)
	if err != nil {
		launch.Finish()
		return cliStart{}, nil, &agent.Error{Class: agent.Fatal, Reason: "sandbox", Err: err}
	}
	work := worktree
	if work == "" {
		work = launch.Home()
	}
	finish := func(err error) error {
		_, refused := launch.Finish()
		switch {
		case refused == nil || ctx.Err() != nil:
			return err
		case err == nil:
			return &agent.Error{Class: agent.Fatal, Reason: "sandbox", Err: refused}
		}
		s.b.log.Warn("copilot: the sandbox", "agent", s.b.name, "error", s.b.redact(refused.Error()))
		return err
	}
	return cliStart{path: path, env: environ, home: launch.Home(), work: work}, finish, nil
}

// session runs the CLI as cli says: one session, one message.
func (s *copilotSetup) session(ctx context.Context, p prompt, raw **http.Response, cli cliStart) (completion, error) {
	home, work := cli.home, cli.work
	guard := &oneRequest{next: s.b.client.Transport, failed: make(chan struct{})}
	client := copilot.NewClient(&copilot.ClientOptions{
		Connection:       copilot.StdioConnection{Path: cli.path, Env: cli.env},
		BaseDirectory:    home,
		WorkingDirectory: work,
		LogLevel:         "error",
		GitHubToken:      s.token,
		UseLoggedInUser:  copilot.Bool(false),
		// Every model request goes through optr's HTTP client and guard:
		// the first failed answer ends the attempt, so the CLI's own
		// retries never reach the network (package recovery retries).
		RequestHandler: &copilot.CopilotRequestHandler{Transport: guard},
	})
	if err := client.Start(ctx); err != nil {
		if ctx.Err() != nil {
			return completion{}, err
		}
		return completion{}, agent.Unusable(s.b.name, s.b.provider, fmt.Sprintf("the Copilot CLI %s did not start: %v", s.cli, err))
	}
	defer func() { _ = client.Stop() }()

	session, err := client.CreateSession(ctx, s.sessionConfig(p, work))
	if err != nil {
		if e := guard.failure(raw); e != nil {
			return completion{}, e
		}
		return completion{}, s.sessionFailed("open a session", err)
	}
	defer func() { _ = session.Disconnect() }()

	t := newTurn()
	defer session.On(t.event)()
	if _, err := session.Send(ctx, copilot.MessageOptions{Prompt: p.user}); err != nil {
		if e := guard.failure(raw); e != nil {
			return completion{}, e
		}
		return completion{}, s.sessionFailed("send the intent", err)
	}
	select {
	case <-t.idle:
	case <-guard.failed:
		_ = session.Abort(context.WithoutCancel(ctx))
		return completion{}, guard.failure(raw)
	case e := <-t.errs:
		if err := guard.failure(raw); err != nil {
			return completion{}, err
		}
		return completion{}, s.sessionError(e)
	case <-ctx.Done():
		_ = session.Abort(context.WithoutCancel(ctx))
		return completion{}, ctx.Err()
	}
	if err := guard.failure(raw); err != nil {
		return completion{}, err
	}
	return t.completion(), nil
}

// sessionConfig is the session of one attempt, with no discovery of
// instructions, skills or hooks. A text agent has no tools and optr's
// prompt as the whole system message. A coding agent (p.worktree set)
// keeps the CLI's own system message, followed by optr's, and the CLI's
// file tools, allowed to read and write inside its worktree only
// (treePermissions).
func (s *copilotSetup) sessionConfig(p prompt, work string) *copilot.SessionConfig {
	off := copilot.Bool(false)
	tools, system, permit := []string{}, &copilot.SystemMessageConfig{Mode: "replace", Content: p.system}, denyAll
	if p.worktree != "" {
		tools, system, permit = codingTools, &copilot.SystemMessageConfig{Mode: "append", Content: p.system}, treePermissions(p.worktree)
	}
	return &copilot.SessionConfig{
		ClientName:                         "optr",
		Model:                              s.b.model,
		Provider:                           s.byok,
		WorkingDirectory:                   work,
		AvailableTools:                     tools,
		SystemMessage:                      system,
		OnPermissionRequest:                permit,
		Streaming:                          off,
		EnableConfigDiscovery:              off,
		EnableSkills:                       off,
		EnableHostGitOperations:            off,
		EnableSessionStore:                 off,
		EnableFileHooks:                    off,
		EnableOnDemandInstructionDiscovery: off,
		EnableSessionTelemetry:             off,
	}
}

// denyAll refuses every tool use: a text agent answers in words only.
func denyAll(copilot.PermissionRequest, copilot.PermissionInvocation) (rpc.PermissionDecision, error) {
	return rpc.PermissionDecisionReject{}, nil
}

// sessionFailed classifies a failure to open a session or send to it
// before any model answered. With Copilot's own models that is the
// service refusing the token (no Copilot seat, permission or policy):
// nothing a retry changes.
func (s *copilotSetup) sessionFailed(what string, err error) error {
	if s.b.copilotAuth {
		return copilotRefused(s.b, 0, s.b.redact(err.Error()))
	}
	return &agent.Error{Class: agent.Fatal, Reason: "bad_config", Err: fmt.Errorf("copilot: %s: %w", what, redact(err, s.b.secret))}
}

// sessionError classifies a session.error event the CLI raised without a
// model answer passing through the guard (auth, quota, policy).
func (s *copilotSetup) sessionError(e *copilot.SessionErrorData) error {
	msg := s.b.redact(e.Message)
	status := 0
	if e.StatusCode != nil {
		status = int(*e.StatusCode)
	}
	auth := status == http.StatusUnauthorized || status == http.StatusForbidden ||
		e.ErrorType == "authentication" || e.ErrorType == "authorization"
	switch {
	case auth && s.b.copilotAuth:
		return copilotRefused(s.b, status, msg)
	case auth:
		return &agent.Error{Class: agent.Fatal, Reason: "unauthorized", Status: status, Err: fmt.Errorf("copilot (byok): the endpoint refused the key in %s: %s", s.b.keyVar, msg)}
	case status == http.StatusGone:
		return &agent.Error{Class: agent.Fatal, Reason: "gone", Status: status, Err: errors.New("copilot: " + msg)}
	case e.ErrorType == "rate_limit" || status == http.StatusTooManyRequests:
		return &agent.Error{Class: agent.Transient, Reason: "rate_limited", Status: status, Err: errors.New("copilot: " + msg)}
	case status >= 500:
		return &agent.Error{Class: agent.Transient, Reason: "server_error", Status: status, Err: errors.New("copilot: " + msg)}
	case e.ErrorType == "quota":
		return &agent.Error{Class: agent.Fatal, Reason: "quota_exceeded", Status: status, Err: errors.New("copilot: " + msg)}
	}
	return &agent.Error{Class: agent.Systematic, Reason: "copilot_error", Status: status, Err: errors.New("copilot: " + msg)}
}

// CopilotGrant says what a workflow needs for Copilot on its own token.
const CopilotGrant = "grant the workflow `permissions: copilot-requests: write`, and have an organisation owner enable the policy \"Allow use of Copilot CLI billed to the organization\""

// copilotRefused is the Fatal, unusable error of Copilot refusing the
// token, with what to grant.
func copilotRefused(b *base, status int, msg string) *agent.Error {
	what := "GitHub Copilot refused the token in " + b.keyVar
	if status != 0 {
		what += fmt.Sprintf(" (HTTP %d)", status)
	}
	if msg != "" {
		what += ": " + clip(msg)
	}
	e := agent.Unusable(b.name, b.provider, what+"; "+CopilotGrant)
	e.Status = status
	return e
}

// turn collects one turn's events: the answer, the token use, its end.
type turn struct {
	mu sync.Mutex
	c  completion
	// metered is whether an assistant.usage event said the turn's
	// tokens; without one its use is unknown, never 0.
	metered bool
	idle    chan struct{}
	errs    chan *copilot.SessionErrorData
	ended   bool
}

func newTurn() *turn {
	return &turn{idle: make(chan struct{}), errs: make(chan *copilot.SessionErrorData, 1)}
}

// event is the session's event handler; the SDK calls it from its reader.
func (t *turn) event(ev copilot.SessionEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch d := ev.Data.(type) {
	case *copilot.AssistantMessageData:
		t.c.text = d.Content
		if d.Model != nil && *d.Model != "" {
			t.c.model = *d.Model
		}
	case *copilot.AssistantUsageData:
		if d.InputTokens != nil {
			t.c.usage.InputTokens += *d.InputTokens
			t.metered = true
		}
		if d.OutputTokens != nil {
			t.c.usage.OutputTokens += *d.OutputTokens
			t.metered = true
		}
		if d.Model != "" {
			t.c.model = d.Model
		}
		if d.FinishReason != nil {
			t.c.stop = *d.FinishReason
			t.c.cut = *d.FinishReason == "length"
		}
	case *copilot.SessionErrorData:
		select {
		case t.errs <- d:
		default:
		}
	case *copilot.SessionIdleData:
		if !t.ended {
			t.ended = true
			close(t.idle)
		}
	}
}

func (t *turn) completion() completion {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.c
	if !t.metered {
		c.usage = agent.UnknownUsage
	}
	return c
}
