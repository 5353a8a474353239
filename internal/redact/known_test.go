package redact

import (
	"testing"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/secretscan/tokentest"
)

func TestLooksSecret(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, value string
		want        bool
	}{
		{"DEPLOY_KEY", "abc12345", true},
		{"SLACK_URL", "https://hooks.slack.com/services/T0001/B0002/" + tokentest.Random(1, 24, tokentest.Alnum), true},
		{"DATABASE_URL", "postgres://app:hunter2hunter2@db:5432/app", true},
		{"NPM", tokentest.NPMToken(3), true},
		{"SEED", tokentest.Random(4, 32, tokentest.Alnum), true},
		{"LANG", "C.UTF-8", false},
		{"NODE_OPTIONS", "--max-old-space-size=4096", false},
		{"HOMEPAGE", "https://example.com/docs/getting-started", false},
		{"GREETING", "hello there, general", false},
		{"MODE", "production", false},
		{"API_KEY", "short", false}, // under 8 bytes: not a secret here
		{"OPENAI_APIKEY", "abcdefgh-1", true},
		{"db.password", "correct horse", true},
		{"GIT_AUTHOR_EMAIL", "bot@example.com", false},
		{"KEYBOARD_LAYOUT", "us-international", false},
		{"MONKEY_PATCHES", "enabled-always", false},
	} {
		if got := LooksSecret(tt.name, tt.value); got != tt.want {
			t.Errorf("LooksSecret(%s, %q) = %v", tt.name, tt.value, got)
		}
	}
}

// Issue 37 finding 2: every value the config hands an agent is known:
// pass-env values, env: values that look secret, the api-key-env.
func TestForConfig(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse("optr.yml", []byte(`agents:
  coder:
    provider: command
    run: [sh, x.sh]
    pass-env: [FAKE_NPM, SLACK_WEBHOOK]
    env: { HOOK_URL: "https://hooks.example.com/services/T1/B2/aZ3kQ9mL2pX7wR4tY8uV", LANG: C.UTF-8, MODE: production-mode }
  judge: { provider: openai, model: gpt-4.1, api-key-env: MY_OPENAI }
`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"FAKE_NPM": "npm-secret-value-777", "SLACK_WEBHOOK": "https://hooks.slack.com/x/y/zzzzzzzzzz", "MY_OPENAI": "sk-my-openai-key-1", "UNRELATED": "not-handed-out-000"}
	r := ForConfig(cfg, func(k string) string { return env[k] }, "extra-token-00000")
	for _, v := range []string{env["FAKE_NPM"], env["SLACK_WEBHOOK"], env["MY_OPENAI"], "https://hooks.example.com/services/T1/B2/aZ3kQ9mL2pX7wR4tY8uV", "extra-token-00000"} {
		if r.String("x "+v+" y") != "x "+Placeholder+" y" {
			t.Errorf("%q is not redacted: %s", v, r.String(v))
		}
	}
	for _, v := range []string{env["UNRELATED"], "production-mode", "C.UTF-8"} {
		if r.String(v) != v {
			t.Errorf("%q is redacted, but optr never handed it out", v)
		}
	}
}
