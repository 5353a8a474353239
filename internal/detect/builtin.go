package detect

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/secretscan"
)

// maxHeuristicScan bounds the output the context rules (secretscan.All
// beyond the token rules, which scan at about 1 MB/s) read: the token
// rules already ran over every byte of it, as redaction.
const maxHeuristicScan = 4 << 20

// minBlob is the shortest run of base64 or hex characters in an added
// line taken for an encoded blob: far longer than any hash, key or
// identifier a change holds in the open.
const minBlob = 256

// Builtin runs the built-in detectors — no LLM, always on — over π*'s
// output (as optr keeps it: redacted), read line by line from output so
// that an output of many MiB is never held whole, and its patch (as
// captured).
func Builtin(output io.Reader, patch []byte) ([]Finding, error) {
	findings, err := outputSecrets(output)
	for _, f := range parsePatch(string(patch)) {
		findings = append(findings, scanFile(f)...)
	}
	return findings, err
}

// outputSecrets finds secrets in π*'s output: the placeholders redaction
// left where a known secret or a token was (the agent printed it), and
// what gitleaks' context rules find in its first maxHeuristicScan bytes.
func outputSecrets(output io.Reader) ([]Finding, error) {
	var out []Finding
	var head strings.Builder
	rd := bufio.NewReaderSize(output, 64<<10)
	for n := 1; ; n++ {
		line, err := rd.ReadString('\n')
		if head.Len() < maxHeuristicScan {
			head.WriteString(line[:min(len(line), maxHeuristicScan-head.Len())])
		}
		out = append(out, placeholders(line, n)...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, fmt.Errorf("read π*'s output: %w", err)
		}
	}
	return append(out, secretsIn(head.String(), "", nil)...), nil
}

// placeholders reports the redaction placeholders in line n of the output.
func placeholders(line string, n int) []Finding {
	var out []Finding
	for rest := line; strings.Contains(rest, "[redacted"); {
		i := strings.Index(rest, "[redacted")
		if i < 0 {
			break
		}
		rest = rest[i:]
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			break
		}
		switch tag := rest[:end+1]; {
		case tag == redact.Placeholder:
			out = append(out, Finding{DetectorSecrets, "known-secret", "", n, "the value of one of optr's secret variables (redacted)"})
		case strings.HasPrefix(tag, "[redacted:"):
			rule := tag[len("[redacted:") : len(tag)-1]
			out = append(out, Finding{DetectorSecrets, rule, "", n, "a token-shaped string (redacted)"})
		}
		rest = rest[end+1:]
	}
	return out
}

// secretsIn reports what gitleaks' rules find in text of the file at p
// ("" for the output, whose lines are counted); lineOf maps an offset in
// a file's text to its line.
func secretsIn(text, p string, lineOf func(int) int) []Finding {
	var out []Finding
	for _, m := range secretscan.Find(text, p, secretscan.All) {
		var line int
		if p == "" {
			line = strings.Count(text[:m.Start], "\n") + 1
		} else {
			line = lineOf(m.Start)
		}
		out = append(out, Finding{DetectorSecrets, m.Rule, p, line, "a secret by gitleaks' rule " + m.Rule})
	}
	return out
}

// scanFile runs the detectors over one file of the patch.
func scanFile(f patchFile) []Finding {
	var out []Finding
	if kind := automation(f.path); kind != "" {
		out = append(out, Finding{DetectorAutomation, kind, f.path, 0, "the change touches " + kindNames[kind] + ", which runs with the repository's permissions"})
	} else if path.Base(f.path) == "package.json" {
		for _, l := range f.added {
			if packageScriptRE.MatchString(l.text) {
				out = append(out, Finding{DetectorAutomation, "package-scripts", f.path, l.n, "the change adds or edits package.json scripts, which npm runs on install and build"})
				break
			}
		}
	}
	if f.executable {
		out = append(out, Finding{DetectorExecutable, "executable-file", f.path, 0, "the change adds an executable file (mode 100755)"})
	}
	if f.binary {
		out = append(out, Finding{DetectorBinary, "binary-file", f.path, 0, "the change adds or changes a binary file, which a reviewer cannot read"})
	}
	for _, id := range secretscan.PathRules(f.path) {
		out = append(out, Finding{DetectorSecrets, id, f.path, 0, "a file of a kind that holds keys (gitleaks' rule " + id + ")"})
	}
	if len(f.added) == 0 || secretscan.PathAllowed(f.path) {
		return out
	}
	var text strings.Builder
	starts := make([]int, len(f.added)) // offset of each added line in text
	for i, l := range f.added {
		starts[i] = text.Len()
		text.WriteString(l.text)
		text.WriteByte('\n')
		if blob := blobRE.Regexp().FindString(l.text); blob != "" {
			out = append(out, Finding{DetectorEncoded, "encoded-blob", f.path, l.n, fmt.Sprintf("the change adds a run of %d base64 or hex characters, which can hide code or data", len(blob))})
		}
		if fetchRunRE.MatchString(l.text) {
			out = append(out, Finding{DetectorFetchRun, "fetch-and-run", f.path, l.n, "the change fetches code from the network and runs it"})
		}
	}
	lineAt := func(off int) int {
		i := 0
		for i+1 < len(starts) && starts[i+1] <= off {
			i++
		}
		return f.added[i].n
	}
	return append(out, secretsIn(text.String(), f.path, lineAt)...)
}

// The kinds of automation a change may touch.
var kindNames = map[string]string{
	"workflow":  "a GitHub Actions workflow or action",
	"git-hook":  "a git hook or its manager's config",
	"ci-config": "a CI system's configuration",
	"build":     "a build entry point",
}

// automation names the kind of automation at p (kindNames), "" for none.
func automation(p string) string {
	base := path.Base(p)
	switch {
	case strings.HasPrefix(p, ".github/"):
		return "workflow"
	case strings.HasPrefix(p, ".githooks/"), strings.HasPrefix(p, ".husky/"), strings.Contains(p, "/hooks/") && strings.Contains(p, ".git"),
		base == ".pre-commit-config.yaml", base == "lefthook.yml", base == ".lefthook.yml":
		return "git-hook"
	case strings.HasPrefix(p, ".circleci/"), strings.HasPrefix(p, ".buildkite/"), strings.HasPrefix(p, ".devcontainer/"),
		base == ".gitlab-ci.yml", base == ".travis.yml", base == "azure-pipelines.yml", base == "bitbucket-pipelines.yml",
		base == "Jenkinsfile", base == ".drone.yml", base == "cloudbuild.yaml", base == "appveyor.yml":
		return "ci-config"
	case base == "Makefile", base == "makefile", base == "GNUmakefile", strings.HasSuffix(base, ".mk"),
		base == "Dockerfile", strings.HasPrefix(base, "Dockerfile."), base == "Taskfile.yml", base == "justfile",
		base == "build.gradle", base == "build.gradle.kts", base == "settings.gradle", base == "pom.xml",
		base == "setup.py", base == "build.rs", base == "CMakeLists.txt", base == ".envrc", base == "go.work",
		p == ".vscode/tasks.json":
		return "build"
	}
	return ""
}

var (
	// packageScriptRE: a line of package.json that opens or edits
	// scripts, lifecycle scripts included.
	packageScriptRE = lazyregexp.New(`"(scripts|(pre|post)?install|prepare|prepublish(Only)?|prepack|postpack)"\s*:`)
	// blobRE: a run of minBlob or more base64 (or hex) characters.
	blobRE = lazyregexp.New(`[A-Za-z0-9+/_-]{` + fmt.Sprint(minBlob) + `,}={0,2}`)
	// fetchRunRE: code fetched and handed to an interpreter: curl … | sh,
	// bash <(wget …), sh -c "$(curl …)", iwr … | iex.
	fetchRunRE = lazyregexp.New(`(?i)(\b(curl|wget|fetch)\b[^|\n]*\|\s*(sudo\s+)?(ba|z|da|k|fi)?sh\b|\b(curl|wget)\b[^|\n]*\|\s*(sudo\s+)?(python\d?|perl|ruby|node)\b|\b(ba|z)?sh\s+(-c\s+)?["']?\$\(\s*(curl|wget)\b|<\(\s*(curl|wget)\b|\b(iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|\n]*\|\s*(iex|invoke-expression)\b)`)
)
