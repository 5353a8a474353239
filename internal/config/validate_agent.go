package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/preset"
	"github.com/optr-dev/optr/internal/provider"
)

func (v *validator) agents() {
	if len(v.c.AgentNames) == 0 {
		v.ps.add("agents", "at least one agent is required; add one under agents:, such as a command agent with run: [./agent.sh] or a copilot agent with provider: copilot")
		return
	}
	for _, name := range v.c.AgentNames {
		v.agent("agents."+name, name, v.c.Agents[name])
	}
}

// agent checks one agent against the registry of providers (package
// provider): the provider exists, no key it does not use is written, and
// what it needs is there.
func (v *validator) agent(key, name string, a Agent) {
	v.name(key, "agent", name)
	if a.AttemptTimeout > a.Timeout {
		v.ps.add(key+".attempt-timeout", "%s is longer than the agent's timeout (%s), which bounds every attempt together; shorten it or raise timeout", a.AttemptTimeout, a.Timeout)
	}
	if a.Provider == provider.GitHubModels {
		v.ps.add(key+".provider", "provider github-models is retired: GitHub shut GitHub Models down on %s and its endpoint answers 410 Gone; use provider: copilot, which runs GitHub Copilot on the workflow's token (grant permissions: copilot-requests: write)", provider.GitHubModelsRetired)
		return
	}
	if !v.enum(key+".provider", "provider", a.Provider, provider.Names()) {
		return
	}
	p, _ := provider.Lookup(a.Provider)
	for _, k := range agentKeys() {
		if !p.Uses(k) {
			v.notUsed(key, notUsedBy(p, k), k)
		}
	}
	if p.Program {
		v.program(key, a)
		for _, env := range sortedKeys(a.Env) {
			k := key + ".env." + env
			v.envName(k, env)
			if strings.HasPrefix(strings.ToUpper(env), "OPTR_") {
				v.ps.add(k, "OPTR_ variables are set by optr for every %s agent; choose another name", p.Name)
			}
		}
		v.passEnv(key+".pass-env", a.PassEnv)
		v.gateway(key, a)
		return
	}
	// The providers with rules of their own.
	switch p.Name {
	case provider.AzureOpenAI:
		if a.Model == "" && a.Deployment == "" {
			v.ps.add(key+".model", "azure-openai agents need a model or a deployment: the name of the model deployment in your Azure OpenAI resource")
		}
	case provider.Copilot:
		v.copilot(key, a)
	}
	if p.NeedsModel && a.Model == "" {
		v.ps.add(key+".model", "model is required for %s agents, such as %s", p.Name, p.ExampleModel)
	}
	if a.APIKeyEnv != "" {
		v.envName(key+".api-key-env", a.APIKeyEnv)
	}
	if v.written(key + ".api") {
		v.enum(key+".api", "api", a.API, p.WireNames())
	}
	if v.written(key + ".base-url") {
		v.baseURL(key+".base-url", a.BaseURL, p)
	}
	v.atLeast(key+".max-tokens", a.MaxTokens, 1)
}

// agentKeys returns the agent keys that some provider uses, each once, in
// registry order.
func agentKeys() []string {
	var lists [][]string
	for _, p := range provider.All() {
		lists = append(lists, p.Keys)
	}
	return distinct(lists...)
}

// notUsedBy says, for a "key is not used by …" message, what p's agents are
// and which agents do use key.
func notUsedBy(p provider.Provider, key string) string {
	users := provider.Using(key)
	switch {
	case slices.Equal(users, provider.LLMNames()):
		return p.Name + " agents"
	case !slices.ContainsFunc(users, provider.IsLLM):
		return fmt.Sprintf("%s agents (only %s agents run a program)", p.Name, oneOf(users))
	}
	return fmt.Sprintf("%s agents (only %s)", p.Name, oneOf(users))
}

// copilot checks what only copilot agents have: without byok, Copilot's
// own models (model optional, no base-url); with byok, an endpoint of that
// kind, which needs base-url and a model.
func (v *validator) copilot(key string, a Agent) {
	if a.BYOK == "" {
		if v.written(key + ".base-url") {
			v.ps.add(key+".base-url", "base-url is used by copilot agents only with byok (openai, azure or anthropic); add byok or remove base-url")
		}
		v.notUsed(key, "copilot agents without byok: azure", "api-version")
		return
	}
	if !v.enum(key+".byok", "byok", a.BYOK, provider.BYOKKinds()) {
		return
	}
	if a.BYOK != BYOKAzure {
		v.notUsed(key, "copilot agents without byok: azure", "api-version")
	}
	endpoint, _ := provider.ForBYOK(a.BYOK)
	if a.BaseURL != "" {
		v.doubled(key+".base-url", a.BaseURL, endpoint)
	}
	if a.BaseURL == "" {
		v.ps.add(key+".base-url", "byok: %s needs base-url: the endpoint's base URL, such as %s", a.BYOK, endpoint.ExampleURL)
	}
	if a.Model == "" {
		v.ps.add(key+".model", "byok: %s needs a model: the model id the endpoint serves, such as %s", a.BYOK, endpoint.ExampleModel)
	}
}

// program checks what runs for a command agent: its preset, or its run.
// A preset's agent may write run (its own command line), env, model (the
// CLI's model flag) and timeout over the preset's; without a preset, run
// is required and model has no use.
func (v *validator) program(key string, a Agent) {
	if a.Preset == "" {
		v.argv(key+".run", a.Run, "./agent.sh")
		v.notUsed(key, "command agents without a preset (a preset passes it to its CLI: "+oneOf(preset.Names())+")", "model")
		return
	}
	if !v.enum(key+".preset", "preset", a.Preset, preset.Names()) {
		return
	}
	switch {
	case v.written(key+".run") && len(a.Run) == 0:
		v.ps.add(key+".run", "run is empty: remove it to run the preset's command line, or give yours as a list, such as [%s]", strings.Join(presetArgv(a.Preset), ", "))
	case v.written(key + ".run"):
		v.argv(key+".run", a.Run, a.Preset)
	}
	if p, _ := preset.Lookup(a.Preset); p.NeedsModel && a.Model == "" {
		v.ps.add(key+".model", "preset %s needs a model: the model id its provider serves, such as gpt-5", a.Preset)
	}
}

// presetArgv is the command line of the preset called name.
func presetArgv(name string) []string {
	p, _ := preset.Lookup(name)
	return p.Argv(nil, "")
}

// argv checks a command line written at key.
func (v *validator) argv(key string, argv []string, example string) {
	switch {
	case len(argv) == 0:
		v.ps.add(key, "run is required: the program and its arguments as a list, such as [%s]", example)
	case strings.TrimSpace(argv[0]) == "":
		v.ps.add(key+"[0]", "the program name is empty")
	}
	for i, arg := range argv {
		if strings.ContainsRune(arg, 0) {
			v.ps.add(fmt.Sprintf("%s[%d]", key, i), "holds a NUL byte, which no program argument can carry; remove it")
		}
	}
}

// baseURL checks an endpoint override of provider p.
func (v *validator) baseURL(key, raw string, p provider.Provider) {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		v.ps.add(key, "%q is not an absolute http or https URL, such as %s", raw, pick(p.ExampleURL, "https://api.example.com/v1"))
	case u.User != nil:
		v.ps.add(key, "do not put credentials in base-url; name the variable that holds the key in api-key-env")
	default:
		v.doubled(key, raw, p)
	}
}

// doubled refuses a base URL of provider p that ends in a path p's clients
// add to it themselves (provider.Provider.Doubled), naming the URL to
// write instead.
func (v *validator) doubled(key, raw string, p provider.Provider) {
	if fixed, ok := p.Doubled(raw); ok {
		v.ps.add(key, "%q ends in a path the %s client adds itself, so requests would go to a doubled path; write base-url: %s (%s base URLs are written like %s)", raw, p.Title, fixed, p.Title, p.ExampleURL)
	}
}

// pick returns the first non-empty value.
func pick(values ...string) string {
	for _, s := range values {
		if s != "" {
			return s
		}
	}
	return ""
}

// gateway checks a command agent's gateway: list: providers the model
// gateway serves, each once, and no pass-env that would hand the agent the
// real key the gateway keeps from it.
func (v *validator) gateway(key string, a Agent) {
	seen := map[string]bool{}
	for i, name := range a.Gateway {
		k := fmt.Sprintf("%s.gateway[%d]", key, i)
		if !v.enum(k, "gateway provider", name, provider.GatewayNames()) {
			continue
		}
		if seen[name] {
			v.ps.add(k, "%s is listed twice", name)
		}
		seen[name] = true
		p, _ := provider.ForGateway(name)
		for j, passed := range a.PassEnv {
			if slices.Contains(p.KeyEnv, passed) {
				v.ps.add(fmt.Sprintf("%s.pass-env[%d]", key, j), "%s would hand the agent the real %s key, which gateway: [%s] keeps from it (the agent gets a placeholder the gateway swaps); remove it from pass-env", passed, p.Title, name)
			}
		}
	}
}
