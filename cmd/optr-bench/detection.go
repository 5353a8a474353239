package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/detect"
	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/secretscan/tokentest"
)

// detectionRows are D1–D4, threat detection's and redaction's cost
// (issue 37, finding 4):
//
//	D1 the built-in detectors over a change of keyword-dense code (every
//	   line holds a word secret rules look for: key, token, secret, auth,
//	   password): MB/s of CPU (goal ≥ 20 MB/s), and of wall;
//	D2 redaction of the same text streamed (as an agent's output is):
//	   MB/s of CPU (goal ≥ 20 MB/s);
//	D3 the built-in detectors over a change of five files of 7.5 MB of
//	   `key = "…"` lines, each a finding of gitleaks' generic rule (goal:
//	   seconds, ≤ 10 s; main took 3 minutes for one such file): the time
//	   and the findings listed (bounded);
//	D4 the same over text built so that every line holds the keywords of
//	   every rule: the scan stops at its work bound with a finding that
//	   says so (goal ≤ 2 min, the scan's time bound, and the finding).
//
// CPU time is the process's (detection runs on one goroutine), so a
// machine others share still gives the figure; wall time is beside it.
func detectionRows(ctx context.Context, mib int) ([]row, error) {
	code := tokentest.KeywordDense(mib << 20)
	patch := patchOf(map[string]string{"src/client.go": code})
	var rows []row

	wall, cpu, found, err := timeBuiltin(ctx, patch)
	if err != nil {
		return nil, err
	}
	mb := float64(len(code)) / 1e6
	rate := mb / cpu.Seconds()
	rows = append(rows, row{id: "D1", what: fmt.Sprintf("detection, %.0f MB of keyword-dense code (a change)", mb),
		measured: fmt.Sprintf("CPU %.2f s, wall %.2f s (%.1f MB/s), %d findings", cpu.Seconds(), wall.Seconds(), mb/wall.Seconds(), len(found)),
		value:    fmt.Sprintf("%.1f MB/s", rate), goal: "≥ 20 MB/s", ok: rate >= 20})

	r := redact.New("sk-live-0123456789abcdefghij", "ghs_E2EworkflowTOKEN0123456789abcdefXYZ")
	start, c0 := time.Now(), cpuTime()
	w := redact.NewWriter(io.Discard, r)
	for p := code; len(p) > 0; {
		n := min(len(p), 64<<10)
		if _, err := io.WriteString(w, p[:n]); err != nil {
			return nil, err
		}
		p = p[n:]
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	cpu, wall = cpuTime()-c0, time.Since(start)
	rate = mb / cpu.Seconds()
	rows = append(rows, row{id: "D2", what: fmt.Sprintf("redaction, %.0f MB of keyword-dense code (streamed)", mb),
		measured: fmt.Sprintf("CPU %.2f s, wall %.2f s", cpu.Seconds(), wall.Seconds()),
		value:    fmt.Sprintf("%.1f MB/s", rate), goal: "≥ 20 MB/s", ok: rate >= 20})

	files := map[string]string{}
	for i := range 5 {
		files[fmt.Sprintf("config/keys%d.py", i)] = assignments(uint64(i), 7_500_000)
	}
	wall, cpu, found, err = timeBuiltin(ctx, patchOf(files))
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{id: "D3", what: "detection, 5 × 7.5 MB of key = \"…\" lines (a change)",
		measured: fmt.Sprintf("CPU %.2f s, %d findings listed", cpu.Seconds(), len(found)),
		value:    fmt.Sprintf("%.2f s", wall.Seconds()), goal: "≤ 10 s", ok: wall <= 10*time.Second && len(found) <= 201})

	wall, cpu, found, err = timeBuiltin(ctx, patchOf(map[string]string{"src/every.txt": everyKeyword(32 << 20)}))
	if err != nil {
		return nil, err
	}
	stopped := slices.ContainsFunc(found, func(f detect.Finding) bool { return f.Rule == "unfinished" })
	rows = append(rows, row{id: "D4", what: "detection, 32 MiB with every rule's keywords on every line",
		measured: fmt.Sprintf("CPU %.2f s, stopped with scan/unfinished: %v", cpu.Seconds(), stopped),
		value:    fmt.Sprintf("%.1f s", wall.Seconds()), goal: "≤ 120 s, a finding if cut short", ok: wall <= 2*time.Minute})
	return rows, nil
}

// timeBuiltin runs the built-in detectors over patch.
func timeBuiltin(ctx context.Context, patch []byte) (wall, cpu time.Duration, found []detect.Finding, err error) {
	start, c0 := time.Now(), cpuTime()
	found, err = detect.Builtin(ctx, strings.NewReader(""), patch)
	return time.Since(start), cpuTime() - c0, found, err
}

// assignments is about n bytes of api_key = "<random>" lines.
func assignments(seed uint64, n int) string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	v := make([]byte, 32)
	for b.Len() < n {
		for i := range v {
			v[i] = alnum[rng.IntN(len(alnum))]
		}
		fmt.Fprintf(&b, "key = \"%s\"\n", v)
	}
	return b.String()
}

// everyKeyword is n bytes of lines that each hold a keyword of every rule
// of gitleaks' set and an assignment after it.
func everyKeyword(n int) string {
	words := []string{"access", "api", "auth", "key", "credential", "creds", "passwd", "password", "secret", "token",
		"adafruit", "adobe", "airtable", "algolia", "alibaba", "asana", "atlassian", "authress", "aws", "azure", "beamer",
		"bitbucket", "bittrex", "clojars", "cloudflare", "codecov", "coinbase", "confluent", "contentful", "curl", "databricks",
		"datadog", "defined", "digitalocean", "discord", "doppler", "droneci", "dropbox", "duffel", "dynatrace", "easypost",
		"etsy", "facebook", "fastly", "finicity", "finnhub", "flickr", "flutterwave", "frameio", "freshbooks", "gcp", "gitlab",
		"gitter", "gocardless", "grafana", "harness", "hashicorp", "heroku", "hubspot", "huggingface", "intercom", "jfrog",
		"jwt", "kraken", "kucoin", "launchdarkly", "linear", "linkedin", "lob", "mailchimp", "mailgun", "mapbox", "mattermost",
		"messagebird", "netlify", "newrelic", "npm", "nytimes", "okta", "openai", "plaid", "planetscale", "postman", "prefect",
		"pulumi", "pypi", "rapidapi", "readme", "rubygems", "scalingo", "sendbird", "sendgrid", "sendinblue", "sentry",
		"shippo", "shopify", "sidekiq", "slack", "snyk", "square", "squarespace", "stripe", "sumologic", "telegram",
		"travis", "trello", "twilio", "twitch", "twitter", "typeform", "vault", "yandex", "zendesk", "-----begin", "eyj",
		"ghp_", "gho_", "ghu_", "ghs_", "glpat-", "xoxb-", "sk-", "akia", "hvs."}
	line := strings.Join(words, "_") + ` = "` + strings.Repeat("aZ3k", 12) + "\"\n"
	return strings.Repeat(line, max(1, n/len(line)))
}

// patchOf is a git diff that adds files (path → content).
func patchOf(files map[string]string) []byte {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var b strings.Builder
	for _, p := range paths {
		lines := strings.Split(strings.TrimSuffix(files[p], "\n"), "\n")
		fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", p, p, p, len(lines))
		for _, l := range lines {
			b.WriteString("+" + l + "\n")
		}
	}
	return []byte(b.String())
}

// binarySize is B1: the stripped binary's size, built as issue 35 measures
// it (go build -trimpath -ldflags='-s -w' ./cmd/optr; goal ≤ 40 MiB).
func binarySize(ctx context.Context, dir string) ([]row, error) {
	bin := filepath.Join(dir, "optr-stripped")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./cmd/optr")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build: %w\n%s", err, out)
	}
	fi, err := os.Stat(bin)
	if err != nil {
		return nil, err
	}
	mib := float64(fi.Size()) / (1 << 20)
	return []row{{id: "B1", what: "stripped binary (go build -trimpath -ldflags='-s -w' ./cmd/optr)",
		measured: fmt.Sprintf("%d bytes", fi.Size()), value: fmt.Sprintf("%.1f MiB", mib), goal: "≤ 40 MiB", ok: mib <= 40}}, nil
}
