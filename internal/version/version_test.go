package version

import (
	"runtime/debug"
	"testing"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "3f2a9c1d0e"}}
	tests := []struct {
		name    string
		stamped string
		info    *debug.BuildInfo
		ok      bool
		want    string
	}{
		{"ldflags win", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-x"}, Settings: rev}, true, "v1.2.3"},
		{"go install of a tag", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "v1.2.3"},
		{"checkout build", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, true, "(devel) 3f2a9c1"},
		{"no module version", "", &debug.BuildInfo{Settings: rev}, true, "(devel) 3f2a9c1"},
		{"short revision ignored", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, true, "(devel)"},
		{"no build info", "", nil, false, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := describe(tt.stamped, tt.info, tt.ok); got != tt.want {
				t.Errorf("describe = %q, want %q", got, tt.want)
			}
		})
	}
}
