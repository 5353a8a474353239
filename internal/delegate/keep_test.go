package delegate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/executor"
)

// Of the spec folder, Keep records the plan, the overview and the planned
// reports, redacted, and leaves out what a specialist left beside them, a
// valid report changed after it was judged, and a report turned into a
// link, naming each.
func TestKeepRecordsOnlyTheDelegationsFiles(t *testing.T) {
	t.Parallel()
	const secret = "sk-ant-KEEPsecret-0123456789"
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "[redacted]") }
	spec := filepath.Join(t.TempDir(), "specs", "001_x")
	path := func(rel string) string { return filepath.Join(spec, filepath.FromSlash(rel)) }
	write := func(rel, content string) {
		if err := os.MkdirAll(filepath.Dir(path(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path(rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".invocation-plan.txt", "expected_invocations: 4\n")
	write("OVERVIEW.md", "# Overview\n")
	write("reports/001_a.md", "report a\n")
	write("reports/002_b.md", "report b, then changed\n")
	write("reports/003_c.md", "report c holds "+secret+"\n")
	write("reports/leak.txt", secret)
	if err := os.Symlink("/etc/passwd", path("reports/004_d.md")); err != nil {
		t.Fatal(err)
	}
	o := &Outcome{
		Spec: "specs/001_x", SpecDir: spec,
		InvocationPlan: path(".invocation-plan.txt"), Overview: path("OVERVIEW.md"),
		Topics: []TopicResult{
			{N: 1, Path: "specs/001_x/reports/001_a.md", Valid: true, SHA256: executor.SHA256Hex("report a\n")},
			{N: 2, Path: "specs/001_x/reports/002_b.md", Valid: true, SHA256: executor.SHA256Hex("report b\n")},
			{N: 3, Path: "specs/001_x/reports/003_c.md"},
			{N: 4, Path: "specs/001_x/reports/004_d.md"},
		},
		reports: []string{path("reports/001_a.md"), path("reports/002_b.md"), path("reports/003_c.md"), path("reports/004_d.md")},
	}
	files, refused, err := o.Keep(redact)
	if err != nil {
		t.Fatal(err)
	}
	kept := relTo(spec, files)
	if diff := cmp.Diff([]string{".invocation-plan.txt", "OVERVIEW.md", "reports/001_a.md", "reports/003_c.md"}, kept); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	why := map[string]string{}
	for _, r := range refused {
		why[r.Path] = r.Reason
	}
	for rel, says := range map[string]string{
		"reports/002_b.md": "changed after it was judged",
		"reports/004_d.md": "is a symbolic link",
		"reports/leak.txt": "a specialist left it",
	} {
		if !strings.Contains(why[rel], says) {
			t.Errorf("%s: refused for %q, want %q", rel, why[rel], says)
		}
	}
	if len(refused) != 3 {
		t.Errorf("refused %v, want 3", refused)
	}
	if data, _ := os.ReadFile(path("reports/003_c.md")); string(data) != "report c holds [redacted]\n" {
		t.Errorf("report c = %q, want it redacted in place", data)
	}
}
