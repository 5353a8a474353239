package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
)

// The spawn floor starts every agent with the intent on stdin and fails
// when one fails: a floor that skipped the work would flatter optr.
func TestSpawnerRunsEveryAgent(t *testing.T) {
	dir := t.TempDir()
	spawner, err := buildProgram(t.Context(), dir, "spawner", spawnerSource)
	if err != nil {
		t.Fatal(err)
	}
	marks := t.TempDir()
	// Each agent must read the intent ("sleep") and leave a mark of its own.
	agent := `test "$(cat)" = sleep && mktemp -p "$1" >/dev/null`
	if out, err := exec.CommandContext(t.Context(), spawner, "5", "sh", "-c", agent, "sh", marks).CombinedOutput(); err != nil {
		t.Fatalf("spawner: %v\n%s", err, out)
	}
	if es, err := os.ReadDir(marks); err != nil || len(es) != 5 {
		t.Fatalf("%d agents ran (%v), want 5", len(es), err)
	}
	if err := exec.CommandContext(t.Context(), spawner, "3", "sh", "-c", "exit 3").Run(); err == nil {
		t.Fatal("spawner succeeded although its agents failed")
	}
}

// The HTTP floor sends K requests and fails when one is not answered 200.
func TestHTTPClientSendsEveryRequest(t *testing.T) {
	dir := t.TempDir()
	client, err := buildProgram(t.Context(), dir, "http-client", httpClientSource)
	if err != nil {
		t.Fatal(err)
	}
	fake := llmtest.NewOpenAI(t)
	fake.SetDefault(llmtest.Reply{Text: llmtest.Answer("done", 1), Delay: time.Millisecond})
	cmd := exec.CommandContext(t.Context(), client, "4")
	cmd.Env = cleanEnv(fake.Env())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("http-client: %v\n%s", err, out)
	}
	if n := len(fake.Requests()); n != 4 {
		t.Fatalf("the fake got %d requests, want 4", n)
	}
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down", http.StatusInternalServerError)
	}))
	defer down.Close()
	cmd = exec.CommandContext(t.Context(), client, "2")
	cmd.Env = cleanEnv(map[string]string{"OPENAI_BASE_URL": down.URL, "OPENAI_API_KEY": "k"})
	if err := cmd.Run(); err == nil {
		t.Fatal("http-client succeeded although every request failed")
	}
}

// The namespaced spawn floor starts every agent as the spawn floor does,
// each in a network namespace of its own: one that did not would make the
// sandbox's floor look cheaper than it is.
func TestNetnsSpawnerIsolatesEveryAgent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("network namespaces are Linux's")
	}
	dir := t.TempDir()
	spawner, err := buildProgram(t.Context(), dir, "netns-spawner", netnsSpawnerSource)
	if err != nil {
		t.Fatal(err)
	}
	if err := netnsAllowed(t); err != nil {
		t.Skipf("the kernel refuses network namespaces here: %v", err)
	}
	marks := t.TempDir()
	// Each agent reads the intent and records its network namespace.
	agent := `test "$(cat)" = sleep && readlink /proc/self/ns/net > "$(mktemp -p "$1")"`
	if out, err := exec.CommandContext(t.Context(), spawner, "3", "sh", "-c", agent, "sh", marks).CombinedOutput(); err != nil {
		t.Fatalf("netns spawner: %v\n%s", err, out)
	}
	own, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{own: true}
	es, err := os.ReadDir(marks)
	if err != nil || len(es) != 3 {
		t.Fatalf("%d agents ran (%v), want 3", len(es), err)
	}
	for _, e := range es {
		b, err := os.ReadFile(filepath.Join(marks, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		ns := strings.TrimSpace(string(b))
		if seen[ns] {
			t.Errorf("an agent ran in network namespace %s, which this test or another agent has too", ns)
		}
		seen[ns] = true
	}
}
