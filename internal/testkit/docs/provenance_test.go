package docs

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/ledger/attest"
)

var (
	// predicateType finds a predicate type the docs give actions/attest
	// (predicate-type: X) or gh (--predicate-type X).
	predicateType = regexp.MustCompile(`predicate-type[:= ]+(\S+)`)
	// checkpointToFile finds a shell line that writes a variable holding
	// the ledger-checkpoint output ($CP, $LEDGER_CHECKPOINT) to a file.
	checkpointToFile = regexp.MustCompile(`"\$\{?(CP|LEDGER_CHECKPOINT)\}?"\s*>`)
)

// TestProvenanceDocs: the docs hand optr's attestation to actions/attest
// and to `gh attestation verify` under the predicate type optr writes
// (gh looks for SLSA build provenance without --predicate-type, and finds
// nothing), and they keep the ledger-checkpoint output in a file with
// printf '%s' (echo adds a newline to the one the output ends with).
func TestProvenanceDocs(t *testing.T) {
	t.Parallel()
	var ghVerify, kept int
	for _, file := range docFiles(t) {
		for i, line := range strings.Split(readRoot(t, file), "\n") {
			where := file + ":" + strconv.Itoa(i+1)
			for _, m := range predicateType.FindAllStringSubmatch(line, -1) {
				if got := strings.Trim(m[1], "`'\""); got != attest.PredicateType {
					t.Errorf("%s: predicate type %s, optr writes %s", where, got, attest.PredicateType)
				}
				if strings.Contains(line, "gh attestation verify") {
					ghVerify++
				}
			}
			if checkpointToFile.MatchString(line) {
				kept++
				if !strings.Contains(line, `printf '%s' "$`) {
					t.Errorf("%s: keeps the ledger checkpoint without printf '%%s': %s", where, strings.TrimSpace(line))
				}
			}
		}
	}
	if ghVerify == 0 {
		t.Error("no doc shows `gh attestation verify` with --predicate-type " + attest.PredicateType)
	}
	if kept == 0 {
		t.Errorf("no doc shows how to keep the ledger-checkpoint output in a file (printf '%%s' \"$CP\" > FILE)")
	}
}
