package actiontest

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/github/githubtest"
)

func TestParseOutputs(t *testing.T) {
	t.Parallel()
	got, err := ParseOutputs("status=completed\r\nresult<<EOF_1\nline one\n\nline=three\nEOF_1\nempty=\nstatus=again\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []Output{{"status", "completed\r"}, {"result", "line one\n\nline=three"}, {"empty", ""}, {"status", "again"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseOutputs (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"x<<EOF\nnever closed\n", "no separator\n", "<<EOF\nEOF\n"} {
		if _, err := ParseOutputs(bad); err == nil {
			t.Errorf("ParseOutputs(%q) accepted what the runner refuses", bad)
		}
	}
}

func TestPayloads(t *testing.T) {
	t.Parallel()
	names := Payloads()
	if len(names) < 7 {
		t.Fatalf("Payloads = %q: the fixtures are not embedded", names)
	}
	for _, n := range names {
		if !json.Valid(Payload(t, n)) {
			t.Errorf("%s is not JSON", n)
		}
	}
	p := PayloadFile(t, "issues.labeled.json", func(m map[string]any) { m["action"] = "unlabeled" })
	b, err := os.ReadFile(p)
	if err != nil || !strings.Contains(string(b), `"action":"unlabeled"`) {
		t.Errorf("PayloadFile wrote %.80s, %v", b, err)
	}
}

func TestRunner(t *testing.T) {
	t.Parallel()
	r := New(t, githubtest.NewServer(t), "42")
	r.Event("issues", "issues.labeled.json", func(m map[string]any) { m["action"] = "opened" })
	var ev struct {
		Action     string
		Repository struct {
			DefaultBranch string `json:"default_branch"`
		}
	}
	b, err := os.ReadFile(r.Getenv("GITHUB_EVENT_PATH"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ev); err != nil || ev.Action != "opened" || ev.Repository.DefaultBranch != "main" {
		t.Errorf("event payload %+v, %v; want action opened on default branch main", ev, err)
	}
	if len(r.Outputs()) != 0 {
		t.Error("outputs before the action ran")
	}
	if err := os.WriteFile(r.Getenv("GITHUB_OUTPUT"), []byte("status<<D\ncompleted\nD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := r.Outputs(); got["status"] != "completed" {
		t.Errorf("Outputs = %v", got)
	}
}
