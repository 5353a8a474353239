package sandbox

import "testing"

// NO_PROXY never hides a host sandbox.network lists: a listed loopback
// endpoint (a local model server, a test's fake) is reached through the
// proxy, the only way out of the process's namespace.
func TestNoProxyKeepsListedLoopbackHosts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		hosts []string
		want  string
	}{
		{nil, "localhost,127.0.0.1,::1"},
		{[]string{"api.anthropic.com", "10.0.0.1:8080"}, "localhost,127.0.0.1,::1"},
		{[]string{"127.0.0.1:8080"}, "localhost,::1"},
		{[]string{"LOCALHOST"}, "127.0.0.1,::1"},
		{[]string{"[::1]:9000", "localhost:1234", "127.0.0.1"}, ""},
	}
	for _, tt := range tests {
		if got := New(Settings{Hosts: tt.hosts}).noProxy(); got != tt.want {
			t.Errorf("hosts %q: NO_PROXY=%q, want %q", tt.hosts, got, tt.want)
		}
	}
}
