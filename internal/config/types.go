package config

import "github.com/optr-dev/optr/internal/provider"

// Config is a whole, validated configuration with defaults filled in.
type Config struct {
	// Path is the file the config was read from, empty for the embedded default.
	Path string `yaml:"-" json:"-"`
	// Agents by name. AgentNames keeps the file's order.
	Agents     map[string]Agent `yaml:"agents" json:"agents"`
	AgentNames []string         `yaml:"-" json:"-"`
	// Constraints by name; every one applies to every run.
	// ConstraintNames keeps the file's order.
	Constraints     map[string]Constraint `yaml:"constraints" json:"constraints,omitempty"`
	ConstraintNames []string              `yaml:"-" json:"-"`
	Pipelines       map[string]Pipeline   `yaml:"pipelines" json:"pipelines,omitempty"`
	Selection       Selection             `yaml:"selection" json:"selection"`
	Checkpoints     Checkpoints           `yaml:"checkpoints" json:"checkpoints"`
	Escalation      Escalation            `yaml:"escalation" json:"escalation"`
	Recovery        Recovery              `yaml:"recovery" json:"recovery"`
	Ledger          Ledger                `yaml:"ledger" json:"ledger"`
	Watcher         Watcher               `yaml:"watcher" json:"watcher"`
	Budget          Budget                `yaml:"budget" json:"budget"`
	// Prices maps a model id to its price, for cost figures.
	Prices   map[string]Price `yaml:"prices" json:"prices,omitempty"`
	Executor Executor         `yaml:"executor" json:"executor"`
	// Changes configures code changes as results (changes.go).
	Changes Changes `yaml:"changes" json:"changes"`
	// Detection configures threat detection (detection.go).
	Detection Detection `yaml:"detection" json:"detection"`
	// Sandbox configures agent isolation (sandbox.go).
	Sandbox Sandbox `yaml:"sandbox" json:"sandbox"`
}

// Provider names, as the registry of providers defines them (package
// provider, which says what optr knows of each).
const (
	ProviderOpenAI      = provider.OpenAI
	ProviderAnthropic   = provider.Anthropic
	ProviderCopilot     = provider.Copilot
	ProviderAzureOpenAI = provider.AzureOpenAI
	ProviderGemini      = provider.Gemini
	ProviderCommand     = provider.Command
)

// BYOK endpoints a copilot agent may use instead of Copilot's own models.
const (
	BYOKOpenAI    = "openai"
	BYOKAzure     = "azure"
	BYOKAnthropic = "anthropic"
)

// Agent configures one agent.
type Agent struct {
	Provider string `yaml:"provider" json:"provider"`
	// Model is the model id (LLM providers). For azure-openai it is the
	// deployment name unless Deployment is set.
	Model string `yaml:"model" json:"model,omitempty"`
	// BaseURL overrides the provider's endpoint (for azure-openai: the
	// resource endpoint, else AZURE_OPENAI_ENDPOINT).
	BaseURL string `yaml:"base-url" json:"base-url,omitempty"`
	// APIKeyEnv names the environment variable holding the key.
	APIKeyEnv string `yaml:"api-key-env" json:"api-key-env,omitempty"`
	// BYOK makes a copilot agent use its own endpoint (base-url, required)
	// and key (api-key-env) of this kind instead of Copilot's models:
	// openai, azure or anthropic.
	BYOK string `yaml:"byok" json:"byok,omitempty"`
	// Deployment and APIVersion are for azure-openai (APIVersion also for a
	// copilot agent with byok: azure).
	Deployment string `yaml:"deployment" json:"deployment,omitempty"`
	APIVersion string `yaml:"api-version" json:"api-version,omitempty"`
	// API is the wire format the agent's requests use, one its provider's
	// API speaks (provider.Provider.APIs): responses or chat-completions
	// for openai and azure-openai. Empty means the provider's first.
	API string `yaml:"api" json:"api,omitempty"`
	// Run is the argv of a command agent. Its items may be written as
	// numbers (run: [sleep, 5]).
	Run []string `yaml:"run" json:"run,omitempty" config:"scalar"`
	// Env adds environment variables for a command agent. Values may be
	// written as numbers.
	Env map[string]string `yaml:"env" json:"env,omitempty" config:"scalar"`
	// PassEnv names variables of optr's environment a command agent is
	// given (its provider's key, say); no GitHub or Actions credential.
	PassEnv []string `yaml:"pass-env" json:"pass-env,omitempty"`
	// Gateway names the providers a command agent reaches through optr's
	// model gateway (architecture §4.18), by their gateway names
	// (provider.GatewayNames: anthropic, openai, azure, gemini): it gets
	// each one's base-URL variable pointing at optr and a placeholder key,
	// never the real one, and every call it makes is metered.
	Gateway []string `yaml:"gateway" json:"gateway,omitempty"`
	// Role is a sentence placed in an LLM agent's system prompt.
	Role string `yaml:"role" json:"role,omitempty"`
	// MaxTokens caps an LLM answer (default 4096; zero for command agents).
	MaxTokens int64 `yaml:"max-tokens" json:"max-tokens,omitempty"`
	// Timeout bounds the whole agent, every attempt included (default 5m).
	Timeout Duration `yaml:"timeout" json:"timeout,omitempty"`
	// AttemptTimeout bounds one attempt (default: Timeout).
	AttemptTimeout Duration `yaml:"attempt-timeout" json:"attempt-timeout,omitempty"`
	// Preset names what a command agent runs: a coding-agent CLI with the
	// settings it needs headless (package preset), such as claude-code.
	// It makes provider command; run, env, model and timeout override it.
	Preset string `yaml:"preset" json:"preset,omitempty"`
}

// Constraint configures one named constraint.
type Constraint struct {
	Check string `yaml:"check" json:"check"`
	// Value is the needle for contains or the limit for max-length. It may
	// be written as a string or a number and is kept as written.
	Value string `yaml:"value" json:"value,omitempty" config:"scalar"`
	// Pattern is an RE2 expression for regex and not-regex.
	Pattern string `yaml:"pattern" json:"pattern,omitempty"`
	// Schema is a path (relative to the workspace) for json-schema.
	Schema string `yaml:"schema" json:"schema,omitempty"`
	// Run is the argv of a command check.
	Run []string `yaml:"run" json:"run,omitempty" config:"scalar"`
	// Agent is the judge agent's name.
	Agent string `yaml:"agent" json:"agent,omitempty"`
	// Criterion is what a judge checks, in words (default for judges: the
	// constraint name).
	Criterion string `yaml:"criterion" json:"criterion,omitempty"`
	// Description is shown in prompts and tables.
	Description string `yaml:"description" json:"description,omitempty"`
	// Hard decides admissibility (default true).
	Hard bool `yaml:"hard" json:"hard"`
	// Timeout bounds a command or judge check (default 1m; zero for the
	// other kinds, which run in memory).
	Timeout Duration `yaml:"timeout" json:"timeout,omitempty"`
}

// Pipeline modes.
const (
	ModeSelect   = "select"
	ModeDelegate = "delegate"
	ModeStages   = "stages"
)

// Pipeline configures a named pipeline.
type Pipeline struct {
	// Mode is select, delegate or stages (default select).
	Mode string `yaml:"mode" json:"mode"`
	// Agents are the agents the pipeline runs: for select the candidates,
	// for delegate the specialists, for stages the stages in order.
	// Default for select and delegate: every agent, in file order; a
	// stages pipeline must list its stages.
	Agents []string `yaml:"agents" json:"agents,omitempty"`
	// Constraints adds constraints by name for runs of this pipeline.
	Constraints []string `yaml:"constraints" json:"constraints,omitempty"`
	// Coordinator is the agent that decomposes a delegate run into topics
	// (default: the first of Agents).
	Coordinator string `yaml:"coordinator" json:"coordinator,omitempty"`
	// Threshold is the share of specialist reports a delegate run needs
	// (default 0.5: below it the run fails, between it and 1 it warns).
	Threshold float64 `yaml:"threshold" json:"threshold,omitempty"`
	// MaxTopics bounds the topics a delegate coordinator may plan
	// (default 4).
	MaxTopics int `yaml:"max-topics" json:"max-topics,omitempty"`
	// Candidates is how many specialists a delegate run gives each topic
	// (default 1); above 1 the best admissible report is selected.
	Candidates int `yaml:"candidates" json:"candidates,omitempty"`
	// Restarts bounds the restarts of a crashed stage (stages only;
	// default 3, 0 = escalate at the first crash). See validate_stages.go.
	Restarts int `yaml:"restarts" json:"restarts,omitempty"`
	// RestartBackoff is the wait before a crashed stage's first restart,
	// doubled after every crash and capped at 30s (stages only; default 1s).
	RestartBackoff Duration `yaml:"restart-backoff" json:"restart-backoff,omitempty"`
	// Feedback gives the first stage the last stage's output of the
	// previous completed run of this pipeline (stages only; default false).
	Feedback bool `yaml:"feedback" json:"feedback,omitempty"`
}

// On-no-admissible policies.
const (
	NoAdmissibleCheckpoint = "checkpoint"
	NoAdmissibleLeastBad   = "least-bad"
	NoAdmissibleFail       = "fail"
)

// Selection configures scoring and the no-admissible policy.
type Selection struct {
	Weights        Weights  `yaml:"weights" json:"weights"`
	Preference     []string `yaml:"preference" json:"preference,omitempty"`
	OnNoAdmissible string   `yaml:"on-no-admissible" json:"on-no-admissible"`
	// Prefer names the tie-break that tells equal scores apart first
	// (Prefers); empty is faster.
	Prefer string `yaml:"prefer" json:"prefer,omitempty"`
}

// Weights of the score components (defaults 40/30/20/10).
type Weights struct {
	Invariants float64 `yaml:"invariants" json:"invariants"`
	TTV        float64 `yaml:"ttv" json:"ttv"`
	Exec       float64 `yaml:"exec" json:"exec"`
	Preference float64 `yaml:"preference" json:"preference"`
}

// Checkpoints configures when runs pause for a human.
type Checkpoints struct {
	// BeforeCommit raises an APPROVAL checkpoint before commit-back.
	BeforeCommit bool `yaml:"before-commit" json:"before-commit"`
	// Recommend maps a trigger (NO_ADMISSIBLE, APPROVAL, HICCUP, BUDGET, THREAT) to
	// the option number recommended when the ledger has no history.
	Recommend map[string]int `yaml:"recommend" json:"recommend,omitempty"`
}

// Escalation configures escalation comments.
type Escalation struct {
	Mention []string `yaml:"mention" json:"mention,omitempty"`
}

// Recovery configures retries and Level-2 analysis.
type Recovery struct {
	// Attempts bounds transient retries per agent (default 3, first try included).
	Attempts int `yaml:"attempts" json:"attempts"`
	// Analyzer names the agent that analyses systematic failures (optional).
	Analyzer string `yaml:"analyzer" json:"analyzer,omitempty"`
	// MaxAlternatives bounds analyzer-suggested retries (default 2).
	MaxAlternatives int `yaml:"max-alternatives" json:"max-alternatives"`
	// BaseDelay and MaxDelay shape exponential backoff (defaults 1s, 30s).
	BaseDelay Duration `yaml:"base-delay" json:"base-delay,omitempty"`
	MaxDelay  Duration `yaml:"max-delay" json:"max-delay,omitempty"`
	// MaxTotal bounds the time spent retrying one agent (default 10m).
	MaxTotal Duration `yaml:"max-total" json:"max-total,omitempty"`
}

// Ledger configures where the ledger is committed, and who witnesses it.
type Ledger struct {
	Branch string `yaml:"branch" json:"branch,omitempty"`
	// Witnesses are the C2SP tlog-witness witnesses that every commit-back
	// which moved the ledger asks to cosign its checkpoint (architecture §4.13).
	Witnesses []Witness `yaml:"witnesses" json:"witnesses,omitempty"`
}

// Witness is a witness of the ledger's checkpoints.
type Witness struct {
	// URL is the witness's submission prefix (add-checkpoint is below it).
	URL string `yaml:"url" json:"url"`
	// Key is the witness's note verifier key, name+hash+base64.
	Key string `yaml:"key" json:"key"`
}

// Watcher configures the in-run watchdog.
type Watcher struct {
	// StuckAfter is how long an agent may show no progress (default 5m).
	StuckAfter Duration `yaml:"stuck-after" json:"stuck-after,omitempty"`
	// MaxFailures failed agents abort the run (default 3).
	MaxFailures int `yaml:"max-failures" json:"max-failures"`
	// MaxRestarts bounds restarts of one stuck agent (default 1).
	MaxRestarts int `yaml:"max-restarts" json:"max-restarts"`
	// Spares are the agents, outside the run, that a reassign decision may
	// give a failed agent's task to, in order. Only declared spares are
	// recruited: never an agent that has another role (the analyzer, a
	// judge). Empty means there is no one to reassign to.
	Spares []string `yaml:"spares" json:"spares,omitempty"`
	// Synthesizer is the agent that merges partial outputs when the watcher
	// decides synthesize; empty means no synthesis step runs.
	Synthesizer string `yaml:"synthesizer" json:"synthesizer,omitempty"`
}

// Budget bounds what a run may spend, and what the runs the ledger
// records may spend in a UTC day and a UTC month (architecture §4.17). Zero is
// no limit.
type Budget struct {
	// MaxTokens: once a run has used this many tokens no new attempt starts (0 = no limit).
	MaxTokens int64 `yaml:"max-tokens" json:"max-tokens,omitempty"`
	// MaxTokensPerDay and MaxTokensPerMonth cap the tokens of the runs the
	// ledger records in the current UTC day and month: a run starts only
	// below them, and stops launching attempts when it reaches them.
	MaxTokensPerDay   int64 `yaml:"max-tokens-per-day" json:"max-tokens-per-day,omitempty"`
	MaxTokensPerMonth int64 `yaml:"max-tokens-per-month" json:"max-tokens-per-month,omitempty"`
	// MaxUSDPerRun caps a run's cost in US dollars like MaxTokens; the
	// per-day and per-month caps work like the token ones. Calls whose
	// cost is unknown count nothing toward them.
	MaxUSDPerRun   float64 `yaml:"max-usd-per-run" json:"max-usd-per-run,omitempty"`
	MaxUSDPerDay   float64 `yaml:"max-usd-per-day" json:"max-usd-per-day,omitempty"`
	MaxUSDPerMonth float64 `yaml:"max-usd-per-month" json:"max-usd-per-month,omitempty"`
	// MaxIntentConstraints caps the constraints an intent (an issue's
	// "### Constraints", --constraint, the constraints input) may add to
	// the config's own; the rest are dropped and named (default 8).
	MaxIntentConstraints int `yaml:"max-intent-constraints" json:"max-intent-constraints"`
}

// Price is a model's price in US dollars per million tokens, and per
// request (a flat rate per call, such as a Copilot premium request: the
// model's multiplier × the price of one).
type Price struct {
	Input   float64 `yaml:"input" json:"input"`
	Output  float64 `yaml:"output" json:"output"`
	Request float64 `yaml:"request" json:"request,omitempty"`
}

// Executor configures the fan-out.
type Executor struct {
	// MaxParallel bounds concurrently running agents; 0 (the default)
	// runs every agent of the run at once.
	MaxParallel int `yaml:"max-parallel" json:"max-parallel"`
	// MaxOutput bounds one agent's output in bytes (default 64 MiB); an
	// agent whose output passes it fails with output_too_large.
	MaxOutput int `yaml:"max-output" json:"max-output"`
}
