package config

import "strings"

// The allowed values of the config's enumerations; schema.json's enums
// are generated from them (schema_gen.go). The providers and the byok
// kinds come from their registry (provider.Names, provider.BYOKKinds),
// the check kinds from theirs (CheckKinds).
var (
	modes         = []string{ModeSelect, ModeDelegate, ModeStages}
	noAdmissibles = []string{NoAdmissibleCheckpoint, NoAdmissibleLeastBad, NoAdmissibleFail}
	triggers      = []string{TriggerNoAdmissible, TriggerApproval, TriggerHiccup, TriggerBudget, TriggerThreat}
)

// The tie-breaks selection.prefer names: how results with equal scores are
// told apart before what people did with the agents' changes, the
// execution time and the name. Each is an entry of package selection's
// preferences.
const (
	// PreferFaster adds nothing: the execution time decides.
	PreferFaster = "faster"
	// PreferCheaper: the lower cost first, a known one before an unknown
	// one.
	PreferCheaper = "cheaper"
)

// Prefers are the values of selection.prefer, in the order messages and
// the schema list them.
var Prefers = []string{
	PreferFaster,
	PreferCheaper,
}

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
