package env

import "strings"

// credentialNames are the variables that hold a GitHub token or optr's
// ledger key, by exact name.
var credentialNames = []string{
	"GITHUB_TOKEN", "GH_TOKEN", "COPILOT_GITHUB_TOKEN",
	"GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN",
	"OPTR_LEDGER_KEY",
}

// credentialPrefixes start the names of whole families of credentials:
// the Actions runtime, results, cache and OIDC request tokens and URLs
// (ACTIONS_*), and the action's inputs, the github-token among them
// (INPUT_*).
var credentialPrefixes = []string{"ACTIONS_", "INPUT_"}

// Credential reports whether name (compared without regard to case, as
// a config author may write it) is a GitHub or Actions credential or
// optr's ledger key: a variable optr never passes to an agent, even when
// asked. A provider key (OPENAI_API_KEY, …) is not one of them: an agent
// that calls that provider itself is given its key by name.
func Credential(name string) bool {
	n := strings.ToUpper(name)
	for _, c := range credentialNames {
		if n == c {
			return true
		}
	}
	for _, p := range credentialPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}
