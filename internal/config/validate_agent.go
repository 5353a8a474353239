package config

import (
	"fmt"
	"net/url"
	"strings"
)

// llmOnly are the agent keys only LLM providers use; commandOnly those
// only command agents use; azureOnly those only azure-openai uses.
var (
	llmOnly     = []string{"model", "base-url", "api-key-env", "role", "max-tokens"}
	commandOnly = []string{"run", "env"}
	azureOnly   = []string{"deployment", "api-version"}
)

func (v *validator) agents() {
	if len(v.c.AgentNames) == 0 {
		v.ps.add("agents", "at least one agent is required; add one under agents:, such as a command agent with run: [./agent.sh] or a github-models agent with model: openai/gpt-4.1")
		return
	}
	for _, name := range v.c.AgentNames {
		v.agent("agents."+name, name, v.c.Agents[name])
	}
}

func (v *validator) agent(key, name string, a Agent) {
	v.name(key, "agent", name)
	if a.AttemptTimeout > a.Timeout {
		v.ps.add(key+".attempt-timeout", "%s is longer than the agent's timeout (%s), which bounds every attempt together; shorten it or raise timeout", a.AttemptTimeout, a.Timeout)
	}
	if !v.enum(key+".provider", "provider", a.Provider, providers) {
		return
	}
	if a.Provider == ProviderCommand {
		v.notUsed(key, "command agents", llmOnly...)
		v.notUsed(key, "command agents", azureOnly...)
		v.argv(key+".run", a.Run, "./agent.sh")
		for _, env := range sortedKeys(a.Env) {
			k := key + ".env." + env
			v.envName(k, env)
			if strings.HasPrefix(strings.ToUpper(env), "OPTR_") {
				v.ps.add(k, "OPTR_ variables are set by optr for every command agent; choose another name")
			}
		}
		return
	}

	v.notUsed(key, a.Provider+" agents (only command agents run a program)", commandOnly...)
	if a.Provider != ProviderAzureOpenAI {
		v.notUsed(key, a.Provider+" agents (only azure-openai)", azureOnly...)
	}
	switch {
	case a.Provider == ProviderAzureOpenAI:
		if a.Model == "" && a.Deployment == "" {
			v.ps.add(key+".model", "azure-openai agents need a model or a deployment: the name of the model deployment in your Azure OpenAI resource")
		}
	case a.Model == "":
		v.ps.add(key+".model", "model is required for %s agents, such as %s", a.Provider, exampleModel(a.Provider))
	case a.Provider == ProviderGitHubModels && !isPublisherModel(a.Model):
		v.ps.add(key+".model", "%q is not a GitHub Models id: they name the publisher too, such as openai/gpt-4.1", a.Model)
	}
	if a.APIKeyEnv != "" {
		v.envName(key+".api-key-env", a.APIKeyEnv)
	}
	if v.written(key + ".base-url") {
		v.baseURL(key+".base-url", a.BaseURL)
	}
	v.atLeast(key+".max-tokens", a.MaxTokens, 1)
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

// baseURL checks an endpoint override.
func (v *validator) baseURL(key, raw string) {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		v.ps.add(key, "%q is not an absolute http or https URL, such as https://api.example.com/v1", raw)
	case u.User != nil:
		v.ps.add(key, "do not put credentials in base-url; name the variable that holds the key in api-key-env")
	}
}

// exampleModel is a model id to show in messages.
func exampleModel(provider string) string {
	switch provider {
	case ProviderAnthropic:
		return "claude-sonnet-4-5"
	case ProviderGitHubModels:
		return "openai/gpt-4.1"
	}
	return "gpt-4.1"
}

// isPublisherModel reports whether id looks like a GitHub Models id,
// publisher/model.
func isPublisherModel(id string) bool {
	publisher, model, ok := strings.Cut(id, "/")
	return ok && publisher != "" && model != ""
}
