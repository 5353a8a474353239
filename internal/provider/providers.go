package provider

// Names of the providers.
const (
	OpenAI      = "openai"
	Anthropic   = "anthropic"
	Copilot     = "copilot"
	AzureOpenAI = "azure-openai"
	Gemini      = "gemini"
	Command     = "command"
)

// GitHubModels is the provider name of GitHub Models, which GitHub retired
// on GitHubModelsRetired; a config that names it is refused with an error
// that points at Copilot.
const (
	GitHubModels        = "github-models"
	GitHubModelsRetired = "2026-07-30"
)

// providers is the registry: one entry per provider, in the order messages
// and the schema list them. To add a provider, add its entry here and its
// constructor in agent/llm, then run go generate ./internal/config, which
// writes its rules into config/schema.json (CONTRIBUTING.md, "A
// provider").
var providers = []Provider{
	{
		Name:         OpenAI,
		Gateway:      "openai",
		Title:        "OpenAI",
		KeyEnv:       []string{"OPENAI_API_KEY"},
		BaseURLEnv:   "OPENAI_BASE_URL",
		DefaultURL:   "https://api.openai.com/v1/",
		ExampleModel: "gpt-4.1",
		ExampleURL:   "https://api.openai.com/v1",
		NeedsModel:   true,
		Keys:         []string{"model", "base-url", "api-key-env", "role", "max-tokens", "api"},
		// The Responses API first: OpenAI's own, with strict structured
		// output; Chat Completions for the servers that speak only it.
		APIs:         []API{{Wire: Responses}, {Wire: ChatCompletions, Strict: true}},
		BYOK:         "openai",
		DefaultAgent: "codex",
	},
	{
		Name:         Anthropic,
		Gateway:      "anthropic",
		Title:        "Anthropic",
		KeyEnv:       []string{"ANTHROPIC_API_KEY"},
		BaseURLEnv:   "ANTHROPIC_BASE_URL",
		DefaultURL:   "https://api.anthropic.com/",
		ExampleModel: "claude-sonnet-4-5",
		ExampleURL:   "https://api.anthropic.com",
		NeedsModel:   true,
		Keys:         []string{"model", "base-url", "api-key-env", "role", "max-tokens"},
		APIs:         []API{{Wire: Messages}},
		BYOK:         "anthropic",
		DefaultAgent: "claude",
	},
	{
		Name:  Copilot,
		Title: "GitHub Copilot",
		About: "GitHub Copilot through the Copilot CLI, on the workflow's token with permissions: copilot-requests: write, or BYOK",
		// The token meant for Copilot, a developer's gh token, the
		// workflow's token.
		KeyEnv: []string{"COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"},
		// The model is optional (the Copilot CLI's default) and so is
		// an example; base-url and api-version only with byok.
		ExampleModel:  "gpt-4.1",
		Keys:          []string{"model", "base-url", "api-key-env", "role", "max-tokens", "byok", "api-version"},
		DefaultAgent:  "copilot",
		DefaultAlways: true,
		Setup: `(no secret needed): give the workflow job the permission

   ` + "```yaml" + `
   permissions:
     copilot-requests: write
   ` + "```" + `

   and, for a repository owned by an organisation, have an organisation owner enable the policy **"Allow use of Copilot CLI billed to the organization"** (organisation settings → Copilot → Policies). The Copilot CLI comes with the optr image; outside it, install ` + "`@github/copilot`" + ` from npm or set ` + "`OPTR_COPILOT_CLI`" + ` to its path.`,
	},
	{
		Name:         AzureOpenAI,
		Gateway:      "azure",
		Title:        "Azure OpenAI",
		KeyEnv:       []string{"AZURE_OPENAI_API_KEY"},
		BaseURLEnv:   "AZURE_OPENAI_ENDPOINT",
		ExampleModel: "gpt-4.1",
		ExampleURL:   "https://my-resource.openai.azure.com",
		// model or deployment: config's own rule for azure-openai.
		Keys: []string{"model", "base-url", "api-key-env", "role", "max-tokens", "deployment", "api-version", "api"},
		// Chat Completions first: a deployment's, on every GA
		// api-version; the Responses API needs a 2025 preview one.
		APIs: []API{{Wire: ChatCompletions}, {Wire: Responses}},
		BYOK: "azure",
	},
	{
		Name:         Gemini,
		Gateway:      "gemini",
		Title:        "Google Gemini",
		About:        "the Gemini API",
		KeyEnv:       []string{"GEMINI_API_KEY"},
		BaseURLEnv:   "GOOGLE_GEMINI_BASE_URL",
		DefaultURL:   "https://generativelanguage.googleapis.com/",
		ExampleModel: "gemini-2.5-flash",
		ExampleURL:   "https://generativelanguage.googleapis.com",
		NeedsModel:   true,
		Keys:         []string{"model", "base-url", "api-key-env", "role", "max-tokens"},
		// optr's own agents speak Gemini's OpenAI-compatible Chat
		// Completions (the OpenAI SDK optr has, no second SDK in the
		// binary); the Gemini CLI speaks generateContent.
		APIs: []API{{Wire: ChatCompletions, Path: "v1beta/openai/"}, {Wire: GenerateContent}},
	},
	{
		Name:    Command,
		Title:   "a command",
		About:   "any executable: Claude Code, Codex CLI, aider, a script",
		Program: true,
		Keys:    []string{"preset", "run", "env", "pass-env", "model", "gateway"},
	},
}
