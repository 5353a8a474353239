package cli

import (
	"slices"
	"strings"
	"testing"
)

// optr help <command> prints that command's help, as <command> --help does.
func TestHelpCommand(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"run", "resume", "handle", "ledger", "init", "config", "action", "version"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := optr(t, "help", name)
			want := optr(t, name, "--help")
			if got.code != 0 || got.stdout != want.stdout || got.stderr != "" {
				t.Fatalf("optr help %s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant stdout:\n%s", name, got.code, got.stdout, got.stderr, want.stdout)
			}
			if !strings.Contains(got.stdout, "Usage: optr "+name) {
				t.Errorf("optr help %s does not print its usage:\n%s", name, got.stdout)
			}
		})
	}
}

// A wrong command line prints the error and a one-line hint, not the help.
func TestUsageErrorsAreShort(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--bogus"}, "optr: unknown flag: --bogus\n  run 'optr help run' for its flags\n"},
		{[]string{"handle", "--interval"}, "optr: flag needs an argument: --interval\n  run 'optr help handle' for its flags\n"},
		{[]string{"frobnicate"}, "optr: unknown command \"frobnicate\"\n  run 'optr help' for the list of commands\n"},
		{[]string{"help", "frobnicate"}, "optr: unknown command \"frobnicate\"\n  run 'optr help' for the list of commands\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			got := optr(t, tt.args...)
			if got.code != ExitUsage || got.stderr != tt.want || got.stdout != "" {
				t.Errorf("optr %v: exit %d\nstdout: %q\nstderr: %q\nwant exit 2 and stderr %q", tt.args, got.code, got.stdout, got.stderr, tt.want)
			}
		})
	}
}

// optr ledger SUB --help prints SUB's help and only the flags SUB reads;
// optr ledger --help prints every subcommand's.
func TestLedgerSubcommandHelp(t *testing.T) {
	t.Parallel()
	all := optr(t, "ledger", "--help")
	for _, s := range ledgerSubcommands {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			got := optr(t, "ledger", s.name, "--help")
			if got.code != 0 || !strings.HasPrefix(got.stdout, "Usage: optr ledger "+s.name+" [flags]\n\n"+s.help+"\n") {
				t.Fatalf("optr ledger %s --help: exit %d\n%s", s.name, got.code, got.stdout)
			}
			if !strings.Contains(all.stdout, "\n"+s.name+" ") {
				t.Errorf("optr ledger --help does not list %s:\n%s", s.name, all.stdout)
			}
			_, flagsPart, _ := strings.Cut(got.stdout, "\nFlags:\n")
			for _, other := range ledgerSubcommands {
				for _, fl := range other.flags {
					if shown := strings.Contains(flagsPart, "--"+fl+" "); shown != slices.Contains(s.flags, fl) {
						t.Errorf("--%s shown %v in ledger %s's help", fl, shown, s.name)
					}
				}
			}
		})
	}
}
