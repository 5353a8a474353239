package config

import (
	"slices"
	"strings"
)

// The allowed values of the config's enumerations. schema.json lists the
// same values; TestSchemaEnums keeps the two in step.
var (
	providers     = []string{ProviderOpenAI, ProviderAnthropic, ProviderCopilot, ProviderAzureOpenAI, ProviderCommand}
	byokKinds     = []string{BYOKOpenAI, BYOKAzure, BYOKAnthropic}
	checkKinds    = []string{CheckContains, CheckRegex, CheckNotRegex, CheckMaxLength, CheckJSON, CheckJSONSchema, CheckCommand, CheckJudge}
	modes         = []string{ModeSelect, ModeDelegate, ModeStages}
	noAdmissibles = []string{NoAdmissibleCheckpoint, NoAdmissibleLeastBad, NoAdmissibleFail}
	triggers      = []string{TriggerNoAdmissible, TriggerApproval, TriggerHiccup, TriggerBudget, TriggerThreat}
)

// Checkpoint triggers that checkpoints.recommend may name.
const (
	TriggerNoAdmissible = "NO_ADMISSIBLE"
	TriggerApproval     = "APPROVAL"
	TriggerHiccup       = "HICCUP"
	TriggerBudget       = "BUDGET"
	TriggerThreat       = "THREAT"
)

// noAdmissibleOptions is the number of options a NO_ADMISSIBLE checkpoint
// offers (Proceed, Skip, Abort; DESIGN §4.6).
const noAdmissibleOptions = 3

// IsLLM reports whether provider is one of the LLM providers (every
// provider except command).
func IsLLM(provider string) bool {
	return provider != ProviderCommand && slices.Contains(providers, provider)
}

// oneOf formats the allowed values for a message: "a, b, c".
func oneOf(values []string) string { return strings.Join(values, ", ") }
