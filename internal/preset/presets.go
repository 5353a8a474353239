package preset

import (
	"fmt"
	"strings"
	"time"
)

// The presets' names.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	GeminiCLI  = "gemini-cli"
	CopilotCLI = "copilot-cli"
)

// codingTimeout is the presets' timeout: a coding agent's run, its
// turns and its tools, not one answer.
const codingTimeout = 30 * time.Minute

// presets is the registry, in the order messages and the schema list them.
// Each entry's settings are what the CLI's release Tested needed, run
// headless against fake model servers through optr's sandbox
// (architecture §6); the tests drive those releases.
var presets = []Preset{
	{
		Name: ClaudeCode, Title: "Claude Code",
		Package: "@anthropic-ai/claude-code", Tested: "2.1.328",
		Program: "claude",
		// stream-json, not json: json prints nothing until the end, and a
		// watcher would stop a working agent as stuck. acceptEdits lets it
		// change files and asks (and, headless, refuses) for the rest:
		// --dangerously-skip-permissions is refused as root.
		Args:      []string{"-p", "--permission-mode", "acceptEdits", "--output-format", "stream-json", "--verbose"},
		ModelFlag: "--model",
		Env: map[string]string{
			// Telemetry, error reports, update checks: api.anthropic.com
			// and others, which the sandbox would refuse.
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
			"DISABLE_AUTOUPDATER":                      "1",
		},
		Gateway: []string{"anthropic"},
		Format:  ClaudeStream,
		Timeout: codingTimeout,
	},
	{
		Name: Codex, Title: "Codex CLI",
		Package: "@openai/codex", Tested: "0.169.0",
		Program: "codex",
		// No --full-auto any more. Its own bubblewrap sandbox fails inside
		// optr's Landlock (it wants /tmp/codex-daemon-<uid>): optr
		// confines it instead. Analytics and plugins call chatgpt.com,
		// ab.chatgpt.com and GitHub.
		Args: []string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
			"-c", "analytics.enabled=false", "--disable", "plugins"},
		ModelFlag: "-m",
		Gateway:   []string{"openai"},
		Format:    CodexEvents,
		Timeout:   codingTimeout,
		home:      codexHome,
	},
	{
		Name: GeminiCLI, Title: "Gemini CLI",
		Package: "@google/gemini-cli", Tested: "0.61.0",
		Program: "gemini",
		// -p "" runs headless with the intent from stdin (-p is appended
		// to it); --skip-trust trusts the working directory for this run.
		Args:      []string{"-p", "", "--approval-mode", "auto_edit", "--skip-trust", "--output-format", "stream-json"},
		ModelFlag: "-m",
		Gateway:   []string{"gemini"},
		Format:    GeminiStream,
		Timeout:   codingTimeout,
		home:      geminiHome,
	},
	{
		Name: CopilotCLI, Title: "the Copilot CLI",
		Package: "@github/copilot", Tested: "1.0.102",
		Program: "copilot",
		// The intent comes on stdin; --allow-all-tools is required
		// headless. Offline mode skips GitHub sign-in, telemetry, web
		// tools and updates: the CLI talks to the provider of
		// COPILOT_PROVIDER_BASE_URL (BYOK) only.
		Args:       []string{"--allow-all-tools", "--output-format", "json", "--no-auto-update"},
		ModelFlag:  "--model",
		NeedsModel: true,
		Env: map[string]string{
			"COPILOT_OFFLINE":     "true",
			"COPILOT_AUTO_UPDATE": "false",
		},
		Gateway: []string{"openai"},
		Format:  CopilotEvents,
		Timeout: codingTimeout,
		derive:  copilotProvider,
	},
}

// codexHome is ~/.codex/config.toml: with OPENAI_BASE_URL set (the
// gateway's, or the agent's env), a provider of that URL speaking the
// Responses API with the key in OPENAI_API_KEY; Codex's own openai
// provider ignores OPENAI_BASE_URL. Without it, nothing: Codex's own
// provider and api.openai.com.
func codexHome(getenv func(string) string) []File {
	base := getenv("OPENAI_BASE_URL")
	if base == "" {
		return nil
	}
	toml := `# Written by optr's codex preset: the provider optr gives this agent.
model_provider = "optr"

[model_providers.optr]
name = "optr"
base_url = ` + tomlString(base) + `
wire_api = "responses"
env_key = "OPENAI_API_KEY"
`
	return []File{{Path: ".codex/config.toml", Data: []byte(toml)}}
}

// geminiHome is ~/.gemini/settings.json: the API key as the way to sign in
// (without it, a set GOOGLE_GEMINI_BASE_URL is not used), and usage
// statistics (play.googleapis.com) and update checks off.
func geminiHome(func(string) string) []File {
	const settings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
}
`
	return []File{{Path: ".gemini/settings.json", Data: []byte(settings)}}
}

// copilotProvider points the Copilot CLI's own provider (BYOK) at the
// OpenAI endpoint the agent is given: the gateway's, else OpenAI's API.
func copilotProvider(getenv func(string) string) []string {
	base := getenv("OPENAI_BASE_URL")
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	env := []string{"COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_WIRE_API=responses", "COPILOT_PROVIDER_BASE_URL=" + base}
	if key := getenv("OPENAI_API_KEY"); key != "" {
		env = append(env, "COPILOT_PROVIDER_API_KEY="+key)
	}
	return env
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
