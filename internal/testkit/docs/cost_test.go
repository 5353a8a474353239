package docs

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
)

// TestCostDoc: docs/cost.md's config blocks are valid config, and it gives
// the built-in price table's date as the code has it.
func TestCostDoc(t *testing.T) {
	t.Parallel()
	md := readRoot(t, "docs/cost.md")
	n := 0
	for _, f := range fences(t, "docs/cost.md", md) {
		if f.Lang != "yaml" {
			continue
		}
		n++
		if _, err := config.Parse("docs/cost.md", []byte(f.Text)); err != nil {
			t.Errorf("docs/cost.md:%d: %v", f.Line, err)
		}
	}
	if n == 0 {
		t.Error("docs/cost.md shows no config")
	}
	if !strings.Contains(md, "**"+cost.PricesChecked+"**") {
		t.Errorf("docs/cost.md does not give the price table's date, %s", cost.PricesChecked)
	}
}
