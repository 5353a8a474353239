package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// binaryModules are the modules optr's binary is built from, each with why
// it is there. A module that reaches the binary and is not listed fails
// TestBinaryDependencies, so a new dependency, and everything it brings,
// is a decision someone wrote down; a row whose module left the binary
// fails too, so the list stays the binary's.
var binaryModules = map[string]string{
	"github.com/optr-dev/optr": "optr itself",

	// Providers and their SDKs (architecture §7: the official SDKs).
	"github.com/openai/openai-go/v3":                           "the openai and azure-openai providers",
	"github.com/anthropics/anthropic-sdk-go":                   "the anthropic provider",
	"github.com/github/copilot-sdk/go":                         "the copilot provider drives the Copilot CLI through its SDK",
	"github.com/coder/websocket":                               "copilot-sdk's transport",
	"github.com/google/jsonschema-go":                          "copilot-sdk's tool schemas",
	"go.opentelemetry.io/otel":                                 "anthropic-sdk-go's and copilot-sdk's tracing interfaces",
	"go.opentelemetry.io/otel/trace":                           "anthropic-sdk-go's and copilot-sdk's tracing interfaces",
	"go.opentelemetry.io/otel/metric":                          "otel's own",
	"go.opentelemetry.io/auto/sdk":                             "otel's own",
	"github.com/go-logr/logr":                                  "otel's logging",
	"github.com/go-logr/stdr":                                  "otel's logging",
	"github.com/tidwall/gjson":                                 "the SDKs' JSON paths, and optr's reads of answers",
	"github.com/tidwall/sjson":                                 "anthropic-sdk-go builds request bodies",
	"github.com/tidwall/match":                                 "gjson's own",
	"github.com/tidwall/pretty":                                "gjson's own",
	"github.com/invopop/jsonschema":                            "anthropic-sdk-go's tool schemas",
	"github.com/bahlo/generic-list-go":                         "invopop/jsonschema's ordered maps",
	"github.com/buger/jsonparser":                              "invopop/jsonschema's own",
	"github.com/pb33f/ordered-map/v2":                          "invopop/jsonschema's ordered maps",
	"github.com/standard-webhooks/standard-webhooks/libraries": "anthropic-sdk-go's webhook verification",
	"github.com/google/uuid":                                   "copilot-sdk's session ids",

	// GitHub and Actions.
	"github.com/google/go-github/v60":       "the GitHub REST client",
	"github.com/google/go-querystring":      "go-github's own",
	"golang.org/x/oauth2":                   "go-github's token transport",
	"github.com/sethvargo/go-githubactions": "the Actions adapter",
	"github.com/sethvargo/go-retry":         "retries of GitHub calls",

	// Config and formats.
	"github.com/goccy/go-yaml":                 "the config file, with line numbers in errors",
	"github.com/santhosh-tekuri/jsonschema/v6": "json-schema checks",
	"github.com/gowebpki/jcs":                  "the ledger's canonical JSON (RFC 8785)",
	"github.com/bmatcuk/doublestar/v4":         "changes.protect globs",
	"github.com/spf13/pflag":                   "the command line",
	"golang.org/x/text":                        "jsonschema's messages",
	"github.com/mattn/go-runewidth":            "terminal column widths of the score table",
	"github.com/clipperhouse/uax29/v2":         "go-runewidth's grapheme clusters",
	"golang.org/x/term":                        "the terminal prompt and live view",
	"go.yaml.in/yaml/v4":                       "pb33f/ordered-map's own (anthropic-sdk-go's schemas)",

	// Secrets and detection.
	"github.com/BobuSumisu/aho-corasick": "gitleaks' stop words, matched as gitleaks matches them",
	"github.com/cespare/xxhash/v2":       "otel's attribute hashing (the SDKs' tracing)",

	// Provenance and confinement.
	"golang.org/x/mod":                              "sumdb's tlog and note: checkpoints and signed notes; modfile: go run's module in an iteration",
	"mvdan.cc/sh/v3":                                "the shell parser (syntax only): the files an iteration's scripts source (execpaths)",
	"github.com/transparency-dev/formats":           "C2SP checkpoints and witness cosignatures",
	"filippo.io/mldsa":                              "transparency-dev/formats' signatures",
	"golang.org/x/crypto":                           "ed25519 notes and the SDKs' TLS needs",
	"github.com/landlock-lsm/go-landlock":           "Landlock confinement",
	"kernel.org/pub/linux/libs/security/libcap/psx": "go-landlock's all-threads syscalls",
	"golang.org/x/sys":                              "system calls the standard library lacks",
	"golang.org/x/sync":                             "errgroup: bounded fan-out",
	"golang.org/x/net":                              "bpf: the launcher's seccomp filter, assembled",
}

// testOnly are modules the tests use and the binary never may: fakes and
// linters are not part of what a user runs.
var testOnly = []string{
	"github.com/getkin/kin-openapi",
	"github.com/rhysd/actionlint",
	"github.com/google/go-cmp",
	"github.com/creack/pty",
	"github.com/transparency-dev/witness",
	"github.com/zricethezav/gitleaks/v8", // its rules are read by secretscan; its loader and scanner check secretscan in tests
	"github.com/spf13/viper",
}

// barredPackages are packages of modules the binary uses that it must not
// import, each with why; a key ending in "/..." bars the package and
// everything under it.
var barredPackages = map[string]string{
	"github.com/zricethezav/gitleaks/v8/...": "gitleaks' scanner and its viper-based config loader are for tests only (secretscan reads the rules itself)",
	"github.com/openai/openai-go/v3": "openai-go's root package registers every type of the whole OpenAI API at start-up, " +
		"so the linker keeps them all (14.8 MB of a 43 MB binary); Chat Completions is optr's own request (internal/agent/llm/chat.go), " +
		"the Responses API the SDK's responses package alone",
}

// barredPackage says why pkg may not be in the binary, if it may not.
func barredPackage(pkg string) (string, bool) {
	for p, why := range barredPackages {
		if tree, ok := strings.CutSuffix(p, "/..."); ok && (pkg == tree || strings.HasPrefix(pkg, tree+"/")) || pkg == p {
			return why, true
		}
	}
	return "", false
}

// TestBinaryDependencies keeps test kits and test-only modules out of
// optr's binary and every module in it accounted for (in the manner of
// tailscale's deptest).
func TestBinaryDependencies(t *testing.T) {
	t.Parallel()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "-f", "{{.ImportPath}} {{with .Module}}{{.Path}}{{end}} {{range .Imports}}{{if eq . \"testing\"}}testing{{end}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	seen := map[string]bool{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue // the standard library
		}
		pkg, mod := f[0], f[1]
		seen[mod] = true
		if mod == "github.com/optr-dev/optr" && isTestKit(pkg, slices.Contains(f[2:], "testing")) {
			t.Errorf("the binary imports the test kit %s", pkg)
		}
		if slices.Contains(testOnly, mod) {
			t.Errorf("the binary imports %s of %s, a module only tests may use", pkg, mod)
		}
		if why, ok := barredPackage(pkg); ok {
			t.Errorf("the binary imports %s: %s", pkg, why)
		}
	}
	for mod := range seen {
		if _, ok := binaryModules[mod]; !ok {
			t.Errorf("module %s is in the binary but not in binaryModules: add it with the reason it is needed, or keep it out", mod)
		}
	}
	for mod := range binaryModules {
		if !seen[mod] {
			t.Errorf("binaryModules lists %s, which the binary no longer uses: remove its row", mod)
		}
	}
}

// isTestKit says whether pkg, a package of optr's, is test code: it is in
// the kits' wing, it imports package testing (no product code does), or it
// is named as a fake beside its package is (githubtest, witnesstest).
// attest, the run's in-toto statement, is the one product package whose
// name ends so.
func isTestKit(pkg string, importsTesting bool) bool {
	name := pkg[strings.LastIndex(pkg, "/")+1:]
	return strings.Contains(pkg, "/internal/testkit") || importsTesting ||
		(strings.HasSuffix(name, "test") && name != "attest")
}
