package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/provider"
)

func TestErrorString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  Error
		want string
	}{
		{Error{File: ".github/optr.yml", Line: 12, Column: 15, Key: "agents.good.provider", Msg: `unknown provider "opnai"`}, `.github/optr.yml:12: agents.good.provider: unknown provider "opnai"`},
		{Error{File: "optr.yml", Key: "agents", Msg: "at least one agent is required"}, "optr.yml: agents: at least one agent is required"},
		{Error{File: "optr.yml", Line: 3, Column: 1, Msg: "sequence end token ']' not found"}, "optr.yml:3: sequence end token ']' not found"},
		{Error{Key: "agents", Msg: "at least one agent is required"}, "agents: at least one agent is required"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestErrorsAreRecognisable(t *testing.T) {
	t.Parallel()
	_, err := Parse("optr.yml", []byte("agents:\n  a: {provider: opnai}\n  b: {provider: command}\n"))
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("errors.As(%v, *Error) = false", err)
	}
	wrapped := fmt.Errorf("load config: %w", err)
	got := []string{}
	for _, e := range Errors(wrapped) {
		got = append(got, e.Error())
	}
	want := []string{
		`optr.yml:2: agents.a.provider: unknown provider "opnai" (want one of ` + strings.Join(provider.Names(), ", ") + ")",
		"optr.yml:3: agents.b.run: run is required: the program and its arguments as a list, such as [./agent.sh]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Errors mismatch (-want +got):\n%s", diff)
	}
	if Errors(nil) != nil || Errors(errors.New("other")) != nil {
		t.Errorf("Errors found *Error values in errors that have none")
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	_, err := Load(filepath.Join(dir, "missing.yml"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want an error wrapping fs.ErrNotExist", err)
	}
	if Errors(err) != nil {
		t.Errorf("Load(missing) returned a config error; a missing file is not one")
	}

	good := filepath.Join(dir, "optr.yml")
	if err := os.WriteFile(good, []byte("agents:\n  a: {provider: command, run: [./a.sh]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(good)
	if err != nil {
		t.Fatalf("Load(%s): %v", good, err)
	}
	if c.Path != good {
		t.Errorf("Path = %q, want %q", c.Path, good)
	}

	bad := filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(bad, []byte("agents:\n  a: {provider: command}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad)
	var ce *Error
	if !errors.As(err, &ce) || ce.File != bad || ce.Line != 2 {
		t.Errorf("Load(bad) = %v, want an *Error for %s line 2", err, bad)
	}
}

// TestMergeBomb gives Parse anchors merged into anchors ten at a time, nine
// levels deep (10^9 entries when expanded): it must refuse them instead of
// expanding them.
func TestMergeBomb(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("agents:\n  a0: &a0 {provider: command, run: [x]}\n")
	for i := 1; i <= 9; i++ {
		alias := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "  a%d: &a%d {<<: [%s]}\n", i, i, strings.Repeat(alias+", ", 9)+alias)
	}
	_, err := Parse("optr.yml", []byte(b.String()))
	var keys []string
	for _, e := range Errors(err) {
		if strings.Contains(e.Msg, "bring in more than") {
			keys = append(keys, fmt.Sprintf("%d %s", e.Line, e.Key))
		}
	}
	// a4 is the first level whose expansion passes 10,000 entries; every
	// later level is refused as well.
	want := []string{"6 agents.a4", "7 agents.a5", "8 agents.a6", "9 agents.a7", "10 agents.a8", "11 agents.a9"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("merge bomb errors mismatch (-want +got):\n%s\nfull error:\n%v", diff, err)
	}
}

// TestErrorAt: a problem found after loading names the file, the line
// and the key, like a validation error.
func TestErrorAt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "optr.yml")
	os.WriteFile(path, []byte("agents:\n  a: {provider: command, run: [./a.sh]}\nledger:\n  witnesses:\n    - url: https://w.example/\n      key: witness.example/w1+1e774ee4+BExY9Nfu8WBBAaoRs6PlEPQX2cl4WCO3B3NI552YKq+Z\n"), 0o644)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.ErrorAt("ledger.witnesses", "needs %s", "OPTR_LEDGER_KEY").Error(), path+":4: ledger.witnesses: needs OPTR_LEDGER_KEY"; got != want {
		t.Errorf("ErrorAt = %q, want %q", got, want)
	}
}
