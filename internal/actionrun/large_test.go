package actionrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

// An agent output of MiBs goes to the branch through blobs streamed from
// the run's files, byte for byte, and the job log shows only an excerpt
// that says where the whole output is.
func TestLargeOutputIsCommittedAsBlobsAndExcerptedInTheLog(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	gh.SetPermission(repo, "ada", "write")
	gh.AddIssue(repo, 7, "Write a lot", "Please.", "ada")
	j := newJob(t, gh, "777")
	j.agents("fail", `# Answer\n\n`)
	j.File("agents/good.sh", "cat >/dev/null\nprintf '# Answer\\n\\n'\nhead -c 3000000 /dev/zero | tr '\\0' 'w'\necho\n")
	j.Event("issues", "issues.labeled.json", actiontest.Labeled(7, "optr", "ada"))
	outs, err := j.run()
	if err != nil {
		t.Fatalf("Run: %v\n%.4000s", err, j.log.String())
	}
	if outs["status"] != "completed" || outs["selected-agent"] != "good" {
		t.Fatalf("outputs = %v", outs)
	}
	run := ".optr/workflows/issue-7/runs/777-1/"
	for _, rel := range []string{run + "result.md", run + "agent-outputs/good.json"} {
		local, err := os.ReadFile(filepath.Join(j.Workspace, rel))
		if err != nil {
			t.Fatal(err)
		}
		if len(local) < 3000000 {
			t.Fatalf("%s has %d bytes, want the whole output", rel, len(local))
		}
		if remote, _ := gh.File(repo, "main", rel); remote != string(local) {
			t.Errorf("%s on the branch has %d bytes, the run's file %d", rel, len(remote), len(local))
		}
	}
	blobs := 0
	for _, r := range gh.Requests() {
		if r.Operation == "POST /repos/{owner}/{repo}/git/blobs" && r.Status == 201 {
			blobs++
		}
	}
	if blobs != 2 {
		t.Errorf("%d blobs stored, want 2 (the agent file and result.md)", blobs)
	}
	log := j.log.String()
	if len(log) > 1<<20 || !strings.Contains(log, "the whole output is in "+run+"agent-outputs/good.json") {
		t.Errorf("the job log has %d bytes and no pointer to the agent file", len(log))
	}
}
