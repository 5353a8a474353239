package llm

import "strings"

// redacted replaces the key wherever it would appear in a message.
const redacted = "[redacted]"

// redact returns s without the agent's key.
func (b *base) redact(s string) string {
	if b.secret == "" {
		return s
	}
	return strings.ReplaceAll(s, b.secret, redacted)
}

// redact returns err unchanged when its message does not hold secret, and
// otherwise an error with the secret replaced. The redacted error does not
// unwrap to the original on purpose: whoever walks the chain would find the
// key in the cause's message. Classification is already done by then.
func redact(err error, secret string) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return redactedError(strings.ReplaceAll(err.Error(), secret, redacted))
}

type redactedError string

func (e redactedError) Error() string { return string(e) }
