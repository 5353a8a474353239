package pipeline

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/secretscan/tokentest"
	"github.com/optr-dev/optr/internal/status"
	"github.com/optr-dev/optr/internal/testkit/gittest"
)

// leakyChange is a run whose only agent writes a token into the
// repository (from a variable optr does not know as a secret), under
// detection.on-finding policy.
func leakyChange(t *testing.T, policy string) (*Driver, Spec, string) {
	t.Helper()
	ws := gittest.Repo(t, changesBase)
	// The token is the agent's own, not one optr gave it (that change would
	// be refused at capture): token-shaped strings are detection's to judge.
	cfg, err := config.Parse("leaky.yml", []byte(`agents:
  leaky: { provider: command, run: [sh, -c, 'cat >/dev/null; printf "//registry.npmjs.org/:_authToken=%s\n" "`+tokentest.NPMToken(1)+`" > registry.conf; echo done'] }
changes: { mode: apply }
detection: { on-finding: `+policy+` }
`))
	if err != nil {
		t.Fatal(err)
	}
	spec, deps := changesSpec(t, cfg, ws)
	return &Driver{Deps: deps, Deliverer: ApplyChange{}}, spec, ws
}

func detectionOf(t *testing.T, rep *Outcome) map[string]any {
	t.Helper()
	last := rep.Entries[len(rep.Entries)-1]
	det, ok := last.Fields["detection"].(map[string]any)
	if last.Kind != "run" || !ok {
		t.Fatalf("the last entry is %s without detection: %v", last.Kind, last.Fields)
	}
	return det
}

// A π* whose patch adds a token-shaped string is not delivered: by
// default it waits at a THREAT checkpoint; block fails the run; warn
// delivers it with the finding. The ledger has the verdict and the
// finding, never the token.
func TestDetectionOnFinding(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		policy  string
		status  status.Status
		applied bool
		verdict string
	}{
		{config.OnFindingCheckpoint, status.Paused, false, ""},
		{config.OnFindingBlock, status.Failed, false, "blocked"},
		{config.OnFindingWarn, status.Completed, true, "warn"},
	} {
		t.Run(tt.policy, func(t *testing.T) {
			t.Parallel()
			drv, spec, ws := leakyChange(t, tt.policy)
			rep, err := drv.Run(t.Context(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != tt.status || rep.Delivery.Applied != tt.applied || !strings.Contains(rep.Message, "secrets/npm-access-token in registry.conf line 1") {
				t.Fatalf("run %s, applied %v: %s", rep.Status, rep.Delivery.Applied, rep.Message)
			}
			if _, err := os.Stat(ws + "/registry.conf"); (err == nil) != tt.applied {
				t.Errorf("the workspace has registry.conf: %v, want %v", err == nil, tt.applied)
			}
			if tt.status == status.Paused {
				if rep.Trigger != checkpoint.TriggerThreat {
					t.Errorf("paused at %s, want THREAT", rep.Trigger)
				}
				return
			}
			det := detectionOf(t, rep)
			findings, _ := det["findings"].([]any)
			if det["verdict"] != tt.verdict || len(findings) != 1 {
				t.Fatalf("ledger detection %v", det)
			}
			want := map[string]any{"detector": "secrets", "rule": "npm-access-token", "path": "registry.conf", "line": int64(1), "reason": "a secret by gitleaks' rule npm-access-token"}
			got := findings[0].(map[string]any)
			for k, v := range want {
				if got[k] != v {
					t.Errorf("finding %s = %v, want %v", k, got[k], v)
				}
			}
		})
	}
}

// At the THREAT checkpoint, option 1 delivers anyway (verdict warn),
// option 2 discards (blocked, nothing delivered), 3 aborts.
func TestDetectionThreatCheckpoint(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		option  int
		status  status.Status
		applied bool
		verdict string
	}{
		{1, status.Completed, true, "warn"},
		{2, status.Completed, false, "blocked"},
		{3, status.Failed, false, "blocked"},
	} {
		t.Run(checkpoint.StandardOptions(checkpoint.TriggerThreat)[tt.option-1].Label, func(t *testing.T) {
			t.Parallel()
			drv, spec, ws := leakyChange(t, config.OnFindingCheckpoint)
			paused, err := drv.Run(t.Context(), spec)
			if err != nil {
				t.Fatal(err)
			}
			cp, err := checkpoint.Load(datalake.Open(spec.Datalake).CheckpointPath(paused.CheckpointID))
			if err != nil {
				t.Fatal(err)
			}
			if cp.Trigger != checkpoint.TriggerThreat || cp.Recommended != 2 || cp.Options[0].Label != "Deliver anyway" {
				t.Fatalf("checkpoint %s recommends %d, options %v", cp.Trigger, cp.Recommended, cp.Options)
			}
			d, err := checkpoint.Decide(cp, tt.option, "ada", "", checkpoint.SourceCLI)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := drv.Answer(t.Context(), cp, d, spec)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != tt.status || rep.Delivery.Applied != tt.applied {
				t.Fatalf("after option %d: %s, applied %v: %s", tt.option, rep.Status, rep.Delivery.Applied, rep.Message)
			}
			if _, err := os.Stat(ws + "/registry.conf"); (err == nil) != tt.applied {
				t.Errorf("the workspace has registry.conf: %v, want %v", err == nil, tt.applied)
			}
			if det := detectionOf(t, rep); det["verdict"] != tt.verdict {
				t.Errorf("verdict %v, want %s", det["verdict"], tt.verdict)
			}
		})
	}
}

// A result with nothing to find is delivered, its verdict clean.
func TestDetectionClean(t *testing.T) {
	t.Parallel()
	ws := gittest.Repo(t, changesBase)
	spec, deps := changesSpec(t, changesConfig(t, ""), ws)
	rep, err := (&Driver{Deps: deps, Deliverer: ApplyChange{}}).Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if det := detectionOf(t, rep); rep.Status != status.Completed || det["verdict"] != "clean" {
		t.Fatalf("run %s, detection %v: %s", rep.Status, det, rep.Message)
	}
}

// detection.all scans every candidate: the one whose change adds a token
// is not admissible, though selection prefers it, and the clean one is
// delivered.
func TestDetectionAll(t *testing.T) {
	t.Parallel()
	ws := gittest.Repo(t, changesBase)
	cfg, err := config.Parse("all.yml", []byte(`agents:
  leaky: { provider: command, run: [sh, -c, 'cat >/dev/null; printf "_authToken=%s\n" "`+tokentest.NPMToken(3)+`" > registry.conf; echo done'] }
  clean: { provider: command, run: [sh, -c, 'cat >/dev/null; echo "hello, world" > greet.txt; echo done'] }
selection: { preference: [leaky, clean] }
changes: { mode: apply }
detection: { all: true }
`))
	if err != nil {
		t.Fatal(err)
	}
	spec, deps := changesSpec(t, cfg, ws)
	rep, err := (&Driver{Deps: deps, Deliverer: ApplyChange{}}).Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != status.Completed || rep.Selected != "clean" || !rep.Delivery.Applied {
		t.Fatalf("run %s, π* %q, applied %v: %s", rep.Status, rep.Selected, rep.Delivery.Applied, rep.Message)
	}
	for _, row := range rep.Table() {
		if row.Agent == "leaky" && (row.Admissible || !slices.Contains(row.Failed, DetectionConstraint)) {
			t.Errorf("leaky's row %+v: want it failing %s", row, DetectionConstraint)
		}
	}
	if det := detectionOf(t, rep); det["verdict"] != "clean" {
		t.Errorf("π*'s verdict %v", det)
	}
}

// TestOneDetectionBoundPerRun: every scan of a run — detection.all's in
// each selection a mode makes (a delegation chooses once per topic), and
// π*'s — spends from one detection bound, so that a run's detection is
// bounded at one bound's worth of work and time, not one per scanner.
func TestOneDetectionBoundPerRun(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse("optr.yml", []byte("agents:\n  a: { provider: command, run: [cat] }\ndetection: { all: true }\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(Spec{Config: cfg, Workflow: "w", RunID: "r-1", Intent: "x",
		Datalake: t.TempDir(), LedgerPath: t.TempDir() + "/ledger.jsonl", Dir: t.TempDir()}, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := p.Scanner()
	if err != nil {
		t.Fatal(err)
	}
	again, err := p.Scanner()
	if err != nil {
		t.Fatal(err)
	}
	if first.Detector.Bound == nil || again.Detector.Bound != first.Detector.Bound {
		t.Fatalf("the run's scans have bounds %p and %p, want one", first.Detector.Bound, again.Detector.Bound)
	}
}
