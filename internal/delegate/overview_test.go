package delegate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOverviewFromMetadataOnly runs specialists whose report bodies hold a
// sentinel: it reaches the reports and nothing optr built from them.
func TestOverviewFromMetadataOnly(t *testing.T) {
	t.Parallel()
	const sentinel = "SENTINEL-7f3a9c-BODY-TEXT"
	h := newHarness(t)
	h.coordinator("planner", commandPlan("hash chains", "witnesses", "checkpoints"))
	h.specialist("scout", "good", "BODY", sentinel)
	h.specialist("lazy", "falsecounts", "BODY", sentinel)
	o, err := Run(t.Context(), h.input(pipeline("planner", "scout", "lazy")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(readFile(t, filepath.Join(o.SpecDir, "reports/001_hash-chains.md")), sentinel) {
		t.Fatal("the sentinel is not in the report: the test proves nothing")
	}
	ledger, _ := json.Marshal(o.Ledger)
	errs, _ := os.ReadFile(filepath.Join(h.lake, "errors.jsonl"))
	for what, text := range map[string]string{
		"OVERVIEW.md":  readFile(t, o.Overview),
		"summary":      o.Summary,
		"text summary": o.SummaryText,
		"checklist":    o.Checklist(),
		"ledger":       string(ledger),
		"errors.jsonl": string(errs),
	} {
		if strings.Contains(text, sentinel) {
			t.Errorf("%s holds a report body's text:\n%s", what, text)
		}
	}
	overview := readFile(t, o.Overview)
	for _, want := range []string{
		"**Request:** Research how ledgers stay honest",
		"**Date:** 2026-11-23",
		"- 001 [hash chains](reports/001_hash-chains.md) — 2 findings, 1 recommendations",
		"- 003 [checkpoints](reports/003_checkpoints.md) — 2 findings, 1 recommendations",
		"## Partial Success",
		"- 002 witnesses: ",
	} {
		if !strings.Contains(overview, want) {
			t.Errorf("OVERVIEW.md lacks %q:\n%s", want, overview)
		}
	}
}
