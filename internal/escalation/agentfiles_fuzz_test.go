package escalation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/redact"
)

// The agent_*.md files are written by agents: whatever they hold, the
// handler decides, writes decision.md and archives the trigger, and a
// secret in them reaches no file it writes under a redacted datalake.
func FuzzAgentFiles(f *testing.F) {
	f.Add("# partial\nsome findings", "failed")
	f.Add("\x00\xff<!-- optr:run=1 -->\n```\n"+strings.Repeat("#", 300), "stuck")
	f.Add("key sk-FUZZSECRET-0123456789 here", "failed")
	const key = "sk-FUZZSECRET-0123456789"
	f.Fuzz(func(t *testing.T, output, status string) {
		root := filepath.Join(t.TempDir(), ".optr")
		datalake.OpenRedacted(root, redact.New(key))
		dir := filepath.Join(root, "workflows", "w", "runs", "r", ".coordination")
		board := `{"agents":{"a1":{"status":` + quoteJSON(status) + `,"error":"boom"}}}`
		for name, content := range map[string]string{
			FileEscalate:   "# Escalation: e1\n\n**Reason:** agent a1 failed\n**Trigger:** error\n",
			FileBlackboard: board,
			"agent_a1.md":  output,
		} {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out, err := Handle(t.Context(), dir, HandleOptions{Now: func() time.Time { return t0 }})
		if err != nil || !out.Handled {
			t.Fatalf("Handle = %+v, %v", out, err)
		}
		if _, err := os.Stat(filepath.Join(dir, FileDecision)); err != nil {
			t.Fatalf("no decision.md: %v", err)
		}
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), "agent_") || strings.HasPrefix(p, filepath.Join(dir, "archive")) {
				return err
			}
			if data, _ := os.ReadFile(p); strings.Contains(string(data), key) {
				t.Fatalf("%s holds the secret:\n%s", p, data)
			}
			return nil
		})
	})
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(" ")
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
