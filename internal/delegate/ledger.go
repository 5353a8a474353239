package delegate

import (
	"math"

	"github.com/optr-dev/optr/internal/config"
)

// LedgerReport is one topic in the ledger run entry's reports.
type LedgerReport struct {
	Topic string `json:"topic"`
	// Path is the planned report, datalake-relative.
	Path string `json:"path"`
	// Agent is the result name whose report counts (or failed).
	Agent string `json:"agent"`
	// Status is "valid" or "failed".
	Status               string `json:"status"`
	SHA256               string `json:"sha256"`
	FindingsCount        int    `json:"findings_count"`
	RecommendationsCount int    `json:"recommendations_count"`
}

// ledgerMembers are the delegate members of the ledger run entry (§4.9
// step 10): mode, spec, success_rate (rounded to 4 decimals) and reports.
func ledgerMembers(o *Outcome) map[string]any {
	reports := make([]LedgerReport, 0, len(o.Topics))
	for _, t := range o.Topics {
		lr := LedgerReport{Topic: t.Topic.Topic, Path: t.Path, Agent: t.Agent, Status: "failed"}
		if t.Valid {
			lr.Status, lr.SHA256 = "valid", t.SHA256
			lr.FindingsCount, lr.RecommendationsCount = t.Meta.FindingsCount, t.Meta.RecommendationsCount
		}
		reports = append(reports, lr)
	}
	return map[string]any{
		"mode":         config.ModeDelegate,
		"spec":         o.Spec,
		"success_rate": math.Round(o.SuccessRate*1e4) / 1e4,
		"reports":      reports,
	}
}
