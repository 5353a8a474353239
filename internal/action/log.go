package action

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"

	"github.com/optr-dev/optr/internal/redact"

	"github.com/sethvargo/go-githubactions"
)

// Log writes the step's log the way the runner reads it: workflow commands
// (::add-mask::, ::group::, annotations) through go-githubactions, whose
// escaping is the toolkit's, and untrusted text only inside a
// ::stop-commands:: block so that it cannot issue commands of its own.
//
// A Log is safe for concurrent use; each call writes its lines without
// interleaving with another's. Write errors do not panic (go-githubactions
// would): the first one is kept and returned by Err, since a broken log
// must not stop a run.
type Log struct {
	mu     sync.Mutex
	w      *stickyWriter
	gha    *githubactions.Action
	getenv func(string) string
	masked map[string]bool // values already masked: each is masked once
}

// NewLog returns a Log writing to w (the step's stdout). getenv is what
// MaskEnv reads.
func NewLog(w io.Writer, getenv func(string) string) *Log {
	sw := &stickyWriter{w: w}
	return &Log{
		w:      sw,
		gha:    githubactions.New(githubactions.WithWriter(sw), githubactions.WithGetenv(getenv)),
		getenv: getenv,
	}
}

// Err returns the first error writing the log, if any.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.err
}

// minMaskedLine is the shortest line of a multi-line secret that is masked
// on its own: shorter ones ("}", "-----") would blank out ordinary text.
const minMaskedLine = 8

// Mask tells the runner to hide secret wherever it appears later in the log
// (::add-mask::). Call it before anything else is printed. A blank secret is
// ignored. A multi-line secret is masked whole and line by line, since the
// runner matches each log line on its own.
func (l *Log) Mask(secret string) {
	if strings.TrimSpace(secret) == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.masked[secret] {
		return
	}
	if l.masked == nil {
		l.masked = map[string]bool{}
	}
	l.masked[secret] = true
	l.gha.AddMask(secret)
	if !strings.ContainsAny(secret, "\r\n") {
		return
	}
	for line := range strings.Lines(normalizeNewlines(secret)) {
		if line = strings.TrimSpace(line); len(line) >= minMaskedLine {
			l.gha.AddMask(line)
		}
	}
}

// SecretEnvNames returns the environment variables that hold secrets optr
// knows of: the github-token input in both spellings, GitHub tokens and the
// providers' API keys.
func SecretEnvNames() []string { return redact.Names() }

// MaskEnv masks the values of the variables in SecretEnvNames and of the
// extra variables named (e.g. a config's api-key-env), read through the
// Log's getenv.
func (l *Log) MaskEnv(extra ...string) {
	for _, name := range append(SecretEnvNames(), extra...) {
		l.Mask(l.getenv(name))
	}
}

// Group starts a collapsible group of log lines titled name.
func (l *Log) Group(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gha.Group(name)
}

// EndGroup ends the group Group started.
func (l *Log) EndGroup() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gha.EndGroup()
}

// Notice writes a notice annotation. msg may hold any text: '%', CR and LF
// are escaped, so it stays one command.
func (l *Log) Notice(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gha.Noticef("%s", msg)
}

// Warning writes a warning annotation, escaped like Notice.
func (l *Log) Warning(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gha.Warningf("%s", msg)
}

// Error writes an error annotation, escaped like Notice.
func (l *Log) Error(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gha.Errorf("%s", msg)
}

// Infof writes a plain log line. Should the text hold a line the runner
// would read as a command (starting with "::" or "##[" after blanks), say
// because an argument came from a user, it is written as Untrusted is.
func (l *Log) Infof(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if looksLikeCommand(text) {
		l.Untrusted("", text)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gha.Infof("%s", text)
}

// Untrusted writes label and then text between ::stop-commands::<token> and
// ::<token>::, so that the runner runs no command text may hold. The token
// is drawn fresh from crypto/rand for each call and, should text happen to
// contain it, drawn again: text cannot end the block early.
func (l *Log) Untrusted(label, text string) {
	token := stopToken(label + "\n" + text)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gha.IssueCommand(&githubactions.Command{Name: "stop-commands", Message: token})
	if label != "" {
		l.gha.Infof("%s", strings.Join(strings.Fields(label), " ")+":")
	}
	l.gha.Infof("%s", strings.TrimSuffix(text, "\n"))
	l.gha.IssueCommand(&githubactions.Command{Name: token})
}

// stopToken returns a random token that text does not contain. The runner
// compares the resume command without regard to case, and the token is
// lowercase hex, so text is searched lower-cased.
func stopToken(text string) string {
	lower := strings.ToLower(text)
	for {
		b := make([]byte, 16)
		_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
		token := "optr-" + hex.EncodeToString(b)
		if !strings.Contains(lower, token) {
			return token
		}
	}
}

// looksLikeCommand reports whether a line of text would be read by the
// runner as a workflow command. Lines end at CR as well as LF, as .NET's
// ReadLine ends them.
func looksLikeCommand(text string) bool {
	for line := range strings.FieldsFuncSeq(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
		line = strings.TrimLeftFunc(line, unicode.IsSpace)
		if strings.HasPrefix(line, "::") || strings.HasPrefix(line, "##[") {
			return true
		}
	}
	return false
}

// stickyWriter keeps the first write error and drops later writes, so
// go-githubactions never sees an error (it would panic).
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return len(p), nil
	}
	if _, err := s.w.Write(p); err != nil {
		s.err = err
	}
	return len(p), nil
}
