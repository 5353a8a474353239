package config

// What threat detection does with a finding (detection.on-finding,
// architecture §4.15).
const (
	// OnFindingCheckpoint pauses at a THREAT checkpoint (the default).
	OnFindingCheckpoint = "checkpoint"
	// OnFindingBlock delivers nothing and fails the run.
	OnFindingBlock = "block"
	// OnFindingWarn delivers with the findings shown.
	OnFindingWarn = "warn"
)

// OnFindings are the allowed values of detection.on-finding.
var OnFindings = []string{OnFindingCheckpoint, OnFindingBlock, OnFindingWarn}

// Detection configures threat detection before π*'s result is delivered
// (architecture §4.15). The built-in detectors always run.
type Detection struct {
	// OnFinding is checkpoint, block or warn (default checkpoint).
	OnFinding string `yaml:"on-finding" json:"on-finding"`
	// Agent names an LLM agent asked, with a fixed prompt, whether the
	// result carries a prompt injection, a secret leak or a malicious
	// patch (optional).
	Agent string `yaml:"agent" json:"agent,omitempty"`
	// All scans every candidate, not only π*; a candidate with findings
	// that would not be delivered is not admissible.
	All bool `yaml:"all" json:"all"`
}

func detectionDefaults(d *Detection, unset func(key string) bool) {
	if unset("detection.on-finding") {
		d.OnFinding = OnFindingCheckpoint
	}
}

func (v *validator) detection() {
	d := v.c.Detection
	v.enum("detection.on-finding", "detection.on-finding", d.OnFinding, OnFindings)
	if d.Agent != "" {
		v.llmRef("detection.agent", d.Agent, "the threat detector")
	}
}
