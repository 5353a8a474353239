package config

import "strings"

// The allowed values of the config's enumerations; schema.json's enums
// are generated from them (schema_gen.go). The providers and the byok
// kinds come from their registry (provider.Names, provider.BYOKKinds),
// the check kinds from theirs (CheckKinds).
var (
	modes         = []string{ModeSelect, ModeDelegate, ModeStages}
	noAdmissibles = []string{NoAdmissibleCheckpoint, NoAdmissibleLeastBad, NoAdmissibleFail}
	prefers       = []string{PreferFaster, PreferCheaper}
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
// offers (Proceed, Skip, Abort; architecture §4.6).
const noAdmissibleOptions = 3

// oneOf formats the allowed values for a message: "a, b, c".
func oneOf(values []string) string { return strings.Join(values, ", ") }
