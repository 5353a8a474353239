package github

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

const permissionOp = "GET /repos/{owner}/{repo}/collaborators/{username}/permission"

func TestAuthorize(t *testing.T) {
	tests := []struct {
		name       string
		role       string // "" leaves the user unknown (404)
		senderType string
		fault      bool // the permission request answers 500
		want       Access
		permission string
		reason     string // a word the reason must contain
		requests   int
	}{
		{name: "admin", role: "admin", senderType: "User", want: Allowed, permission: "admin", reason: "admin", requests: 1},
		{name: "maintain", role: "maintain", senderType: "User", want: Allowed, permission: "write", reason: "write", requests: 1},
		{name: "write", role: "write", senderType: "User", want: Allowed, permission: "write", reason: "write", requests: 1},
		{name: "triage", role: "triage", senderType: "User", want: Denied, permission: "read", reason: "read", requests: 1},
		{name: "read", role: "read", senderType: "User", want: Denied, permission: "read", reason: "read", requests: 1},
		{name: "none", role: "none", senderType: "User", want: Denied, permission: "none", reason: "none", requests: 1},
		{name: "unknown user (404)", senderType: "User", want: Denied, permission: "none", reason: "not a collaborator", requests: 1},
		{name: "server error", role: "admin", senderType: "User", fault: true, want: Unchecked, reason: "could not check", requests: 1},
		{name: "bot, even with admin", role: "admin", senderType: "Bot", want: Denied, reason: "bot", requests: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := githubtest.NewServer(t)
			if tc.role != "" {
				s.SetPermission(repo, "alice", tc.role)
			}
			if tc.fault {
				s.FailNext(permissionOp, 1, githubtest.Fault{Status: 500, Message: "boom"})
			}
			c := newClient(t, s, &sleeper{}, func(o *Options) { o.MaxRetries = -1 })
			got := c.Authorize(t.Context(), "alice", tc.senderType)
			if diff := cmp.Diff(tc.requests, len(s.Requests())); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if got.Access != tc.want || got.Permission != tc.permission || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("Authorize = %+v; want %s, permission %q, reason with %q", got, tc.want, tc.permission, tc.reason)
			}
			if (got.Err != nil) != (tc.want == Unchecked) {
				t.Errorf("Authorize error = %v for access %s", got.Err, got.Access)
			}
		})
	}
}

// A permission API that keeps failing is not retried for half a minute: the
// check gives up after one brief retry and says it could not check.
func TestAuthorizeGivesUpQuickly(t *testing.T) {
	tests := []struct {
		name         string
		fault        githubtest.Fault
		wantRequests int
	}{
		{"server errors", githubtest.Fault{Status: 502, Message: "bad gateway"}, 2},
		{"a long Retry-After", githubtest.Fault{Status: 503, Message: "later", Header: http.Header{"Retry-After": {"60"}}}, 1},
		{"rate limited", githubtest.Fault{Status: 429, Message: "slow down", Header: http.Header{"Retry-After": {"30"}}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := githubtest.NewServer(t)
			s.SetPermission(repo, "alice", "admin")
			s.FailNext(permissionOp, 10, tc.fault)
			sl := &sleeper{}
			c := newClient(t, s, sl)
			got := c.Authorize(t.Context(), "alice", "User")
			if got.Access != Unchecked || !strings.Contains(got.Reason, "re-run") {
				t.Fatalf("Authorize = %+v, want unchecked with advice to re-run", got)
			}
			if n := len(s.Requests()); n != tc.wantRequests {
				t.Errorf("%d requests, want %d", n, tc.wantRequests)
			}
			var waited time.Duration
			for _, w := range sl.waits {
				waited += w
			}
			if waited > permissionMaxWait {
				t.Errorf("waited %s in all, want at most %s", waited, permissionMaxWait)
			}
		})
	}
}
