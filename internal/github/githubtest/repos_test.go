package githubtest

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	gh "github.com/google/go-github/v60/github"
)

func TestContents(t *testing.T) {
	s := NewServer(t)
	big := strings.Repeat("0123456789abcdef", 70000) // 1.1 MB
	tip := s.Commit(DefaultRepo, "main", map[string]string{"dir/a.txt": "A", "big.bin": big}, "more")
	c := newClient(t, s, "token")
	ctx := t.Context()

	file, _, _, err := c.Repositories.GetContents(ctx, owner, name, "dir/a.txt", &gh.RepositoryContentGetOptions{Ref: tip})
	if err != nil {
		t.Fatal(err)
	}
	got, err := file.GetContent()
	if err != nil || got != "A" {
		t.Errorf("dir/a.txt = %q, %v; want A", got, err)
	}

	large, _, _, err := c.Repositories.GetContents(ctx, owner, name, "big.bin", nil)
	if err != nil {
		t.Fatal(err)
	}
	if large.GetEncoding() != "none" || large.Content == nil || *large.Content != "" || large.GetSize() != len(big) {
		t.Errorf("file over 1 MB: encoding %q, content %v, size %d; want none, empty, %d",
			large.GetEncoding(), large.Content != nil, large.GetSize(), len(big))
	}
	raw, err := rawContents(ctx, c, "big.bin", "main")
	if err != nil || raw != big {
		t.Errorf("raw big.bin: %d bytes, %v; want %d bytes", len(raw), err, len(big))
	}
	blob, _, err := c.Git.GetBlobRaw(ctx, owner, name, large.GetSHA())
	if err != nil || string(blob) != big {
		t.Errorf("raw blob: %d bytes, %v; want %d bytes", len(blob), err, len(big))
	}

	_, root, _, err := c.Repositories.GetContents(ctx, owner, name, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range root {
		names = append(names, e.GetType()+" "+e.GetPath())
	}
	if diff := cmp.Diff([]string{"file README.md", "file big.bin", "dir dir"}, names); diff != "" {
		t.Errorf("root listing (-want +got):\n%s", diff)
	}

	for _, tc := range []struct{ path, ref string }{{"missing", ""}, {"README.md", "no-such-branch"}} {
		_, _, _, err = c.Repositories.GetContents(ctx, owner, name, tc.path, &gh.RepositoryContentGetOptions{Ref: tc.ref})
		if statusOf(err) != http.StatusNotFound {
			t.Errorf("GetContents(%q, ref %q): %v, want 404", tc.path, tc.ref, err)
		}
	}
}

// rawContents reads a file with the raw media type.
func rawContents(ctx context.Context, c *gh.Client, path, ref string) (string, error) {
	req, err := c.NewRequest(http.MethodGet, "repos/"+owner+"/"+name+"/contents/"+path+"?ref="+ref, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/vnd.github.raw+json")
	var buf bytes.Buffer
	_, err = c.Do(ctx, req, &buf)
	return buf.String(), err
}

func TestRepoCommitRefs(t *testing.T) {
	s := NewServer(t)
	c := newClient(t, s, "token")
	ctx := t.Context()
	main := s.Head(DefaultRepo, "main")
	feature := s.Commit(DefaultRepo, "feature/x", map[string]string{"f": "1"}, "feature")
	for _, tc := range []struct{ ref, want string }{
		{"main", main}, {"heads/main", main}, {"HEAD", main}, {main, main}, {main[:7], main},
		{"feature/x", feature}, {"heads/feature/x", feature},
	} {
		rc, _, err := c.Repositories.GetCommit(ctx, owner, name, tc.ref, nil)
		if err != nil {
			t.Errorf("GetCommit(%q): %v", tc.ref, err)
			continue
		}
		if rc.GetSHA() != tc.want {
			t.Errorf("GetCommit(%q) = %s, want %s", tc.ref, rc.GetSHA(), tc.want)
		}
	}
	_, _, err := c.Repositories.GetCommit(ctx, owner, name, "heads/nope", nil)
	if statusOf(err) != http.StatusUnprocessableEntity || !strings.HasPrefix(messageOf(err), "No commit found for SHA") {
		t.Errorf("GetCommit of a missing branch: %v, want 422 No commit found", err)
	}
	log := s.Log(DefaultRepo, "feature/x")
	if len(log) != 2 || log[0].SHA != feature || log[1].SHA != main {
		t.Errorf("feature/x log = %+v, want feature then main", log)
	}

	// A force push drops the branch's commits: its history is onto's.
	s.Commit(DefaultRepo, "feature/x", map[string]string{"g": "2"}, "more")
	forced := s.ForcePush(DefaultRepo, "feature/x", main, map[string]string{"h": "3"}, "rewritten")
	log = s.Log(DefaultRepo, "feature/x")
	if len(log) != 2 || log[0].SHA != forced || log[1].SHA != main {
		t.Errorf("feature/x log after a force push = %+v, want the rewrite on main", log)
	}
	if files := s.Files(DefaultRepo, "feature/x"); files["f"] != "" || files["g"] != "" || files["h"] != "3" {
		t.Errorf("files after a force push = %v", files)
	}
}

func TestPermissions(t *testing.T) {
	s := NewServer(t)
	c := newClient(t, s, "token")
	roles := []string{"admin", "maintain", "write", "triage", "read", "none"}
	for _, r := range roles {
		s.SetPermission(DefaultRepo, "user-"+r, r)
	}
	got := map[string]string{}
	for _, r := range roles {
		p, _, err := c.Repositories.GetPermissionLevel(t.Context(), owner, name, "user-"+r)
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		got[r] = p.GetPermission()
	}
	want := map[string]string{"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read", "none": "none"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("permission by role (-want +got):\n%s", diff)
	}
	_, _, err := c.Repositories.GetPermissionLevel(t.Context(), owner, name, "stranger")
	if statusOf(err) != http.StatusNotFound {
		t.Errorf("unknown user: %v, want 404", err)
	}
}

func TestWritesNeedAToken(t *testing.T) {
	s := NewServer(t)
	s.AddIssue(DefaultRepo, 1, "t", "b", "alice")
	anon := newClient(t, s, "")
	_, _, err := anon.Issues.CreateComment(t.Context(), owner, name, 1, &gh.IssueComment{Body: gh.String("x")})
	if statusOf(err) != http.StatusUnauthorized {
		t.Errorf("anonymous write: %v, want 401", err)
	}
	if _, _, err := anon.Repositories.Get(t.Context(), owner, name); err != nil {
		t.Errorf("anonymous read: %v", err)
	}
}
