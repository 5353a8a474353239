package github

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

func TestCanWrite(t *testing.T) {
	tests := []struct {
		name       string
		role       string // "" leaves the user unknown (404)
		senderType string
		fault      bool // the permission request answers 500
		want       bool
		reason     string // a word the reason must contain
		requests   int
	}{
		{name: "admin", role: "admin", senderType: "User", want: true, reason: "admin", requests: 1},
		{name: "maintain", role: "maintain", senderType: "User", want: true, reason: "write", requests: 1},
		{name: "write", role: "write", senderType: "User", want: true, reason: "write", requests: 1},
		{name: "triage", role: "triage", senderType: "User", want: false, reason: "read", requests: 1},
		{name: "read", role: "read", senderType: "User", want: false, reason: "read", requests: 1},
		{name: "none", role: "none", senderType: "User", want: false, reason: "none", requests: 1},
		{name: "unknown user (404)", senderType: "User", want: false, reason: "could not confirm", requests: 1},
		{name: "server error", role: "admin", senderType: "User", fault: true, want: false, reason: "could not confirm", requests: 1},
		{name: "bot, even with admin", role: "admin", senderType: "Bot", want: false, reason: "bot", requests: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := githubtest.NewServer(t)
			if tc.role != "" {
				s.SetPermission(repo, "alice", tc.role)
			}
			if tc.fault {
				s.FailNext("GET /repos/{owner}/{repo}/collaborators/{username}/permission", 1, githubtest.Fault{Status: 500, Message: "boom"})
			}
			c := newClient(t, s, &sleeper{}, func(o *Options) { o.MaxRetries = -1 })
			got, reason := c.CanWrite(t.Context(), "alice", tc.senderType)
			if got != tc.want || !strings.Contains(reason, tc.reason) {
				t.Errorf("CanWrite = %v, %q; want %v with %q", got, reason, tc.want, tc.reason)
			}
			if diff := cmp.Diff(tc.requests, len(s.Requests())); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}
