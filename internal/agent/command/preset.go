package command

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/optr-dev/optr/internal/preset"
	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/sandbox"
	sandboxenv "github.com/optr-dev/optr/internal/sandbox/env"
)

// MaxTranscript bounds the transcript a preset's agent keeps of one
// attempt: its event stream, past which a last line says what was cut.
const MaxTranscript = 32 << 20

// TranscriptName is the transcript's name in the agent's folder of
// $OPTR_OUTPUT_DIR: <agent>/transcript.jsonl, then transcript-2.jsonl
// for a second attempt, and so on.
const TranscriptName = "transcript"

// maxTranscripts bounds the transcripts of one agent in a run.
const maxTranscripts = 100

// presetRun is one attempt of a preset's CLI: the HOME its files went
// into, the reader of its event stream and the transcript of it, kept
// where only optr reads it until the attempt is over.
type presetRun struct {
	reader  *preset.Reader
	file    *os.File
	redact  *redact.Writer
	written int64
	cut     bool
	// ownHome is a HOME made for the attempt when no sandbox made one
	// (no sandbox, or mode off): a preset's settings never go into optr's
	// own HOME.
	ownHome string
}

// startPreset readies an attempt of the preset's CLI whose environment is
// env: the variables the CLI reads made from the ones it was given
// (preset.Derived), its HOME with the preset's files in it, its
// transcript. It returns the environment to start the CLI with.
func (a *Agent) startPreset(env []string, launch *sandbox.Launch) (*presetRun, []string, error) {
	p := a.preset
	look := func(k string) string { return getenv(env, k) }
	env = sandboxenv.Merge(env, p.Derived(look, a.env))
	r := &presetRun{reader: preset.NewReader(p.Format)}
	home, uid, gid := "", -1, -1
	if launch != nil && launch.Home() != "" {
		home = launch.Home()
		if u, g, ok := a.opts.Sandbox.Owner(); ok {
			uid, gid = u, g
		}
	} else {
		dir, err := os.MkdirTemp("", "optr-home-"+safeName(a.name)+"-")
		if err != nil {
			return nil, nil, fmt.Errorf("make a HOME for %s: %w", a.name, err)
		}
		home, r.ownHome = dir, dir
		env = sandboxenv.Merge(env, []string{"HOME=" + dir})
	}
	if err := seed(home, p.Home(func(k string) string { return getenv(env, k) }), uid, gid); err != nil {
		r.close()
		return nil, nil, fmt.Errorf("put %s's settings in its HOME: %w", p.Title, err)
	}
	f, err := os.CreateTemp("", "optr-transcript-*.jsonl")
	if err != nil {
		r.close()
		return nil, nil, fmt.Errorf("keep %s's transcript: %w", a.name, err)
	}
	r.file = f
	r.redact = redact.NewWriter(f, a.opts.Redactor)
	return r, env, nil
}

// seed writes files into home, as uid:gid when uid is not -1: the CLI may
// rewrite its settings. Nothing is followed through a link.
func seed(home string, files []preset.File, uid, gid int) error {
	if len(files) == 0 {
		return nil
	}
	root, err := os.OpenRoot(home)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, f := range files {
		rel := filepath.FromSlash(path.Clean(f.Path))
		dir := filepath.Dir(rel)
		if dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		if err := root.WriteFile(rel, f.Data, 0o644); err != nil {
			return err
		}
		if uid < 0 {
			continue
		}
		for p := rel; p != "."; p = filepath.Dir(p) {
			if err := root.Lchown(p, uid, gid); err != nil {
				return err
			}
		}
	}
	return nil
}

// Write reads the CLI's stdout: into the reader, and into the transcript
// up to MaxTranscript bytes. It never fails: what the transcript cannot
// keep is cut, and said so.
func (r *presetRun) Write(p []byte) (int, error) {
	_, _ = r.reader.Write(p)
	if r.cut || r.redact == nil {
		return len(p), nil
	}
	keep := p
	if r.written+int64(len(p)) > MaxTranscript {
		keep = p[:MaxTranscript-r.written]
		r.cut = true
	}
	if _, err := r.redact.Write(keep); err != nil {
		r.cut = true
	}
	r.written += int64(len(keep))
	if r.cut {
		_, _ = r.redact.Write([]byte("\n" + `{"type":"optr.transcript_cut","kept_bytes":` + strconv.FormatInt(r.written, 10) + "}\n"))
	}
	return len(p), nil
}

// finish ends the reading and keeps the transcript, redacted, in the
// agent's folder of outDir ($OPTR_OUTPUT_DIR) when there is one; it
// returns the session and the transcript's path relative to outDir ("" when
// it was not kept).
func (r *presetRun) finish(outDir, agentName string) (preset.Session, string, error) {
	s := r.reader.Close()
	if r.file == nil {
		return s, "", nil
	}
	if err := r.redact.Close(); err != nil {
		return s, "", err
	}
	if outDir == "" {
		return s, "", nil
	}
	rel, err := keepTranscript(r.file, outDir, agentName)
	return s, rel, err
}

// keepTranscript copies the transcript f into outDir/<agent>/, under the
// first free name, never through a link an agent left there.
func keepTranscript(f *os.File, outDir, agentName string) (string, error) {
	if _, err := f.Seek(0, 0); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(outDir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	dir := safeName(agentName)
	if err := root.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	for n := 1; n <= maxTranscripts; n++ {
		name := TranscriptName + ".jsonl"
		if n > 1 {
			name = fmt.Sprintf("%s-%d.jsonl", TranscriptName, n)
		}
		rel := path.Join(dir, name)
		out, err := root.OpenFile(filepath.FromSlash(rel), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = out.ReadFrom(f)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		return rel, err
	}
	return "", fmt.Errorf("%s already holds %d transcripts", dir, maxTranscripts)
}

// close removes what the attempt made: its transcript's private copy and
// a HOME made for it.
func (r *presetRun) close() {
	if r.file != nil {
		r.file.Close()
		os.Remove(r.file.Name())
	}
	if r.ownHome != "" {
		os.RemoveAll(r.ownHome)
	}
}

// safeName keeps an agent's name fit for a file name.
func safeName(name string) string {
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' {
			return c
		}
		return '_'
	}, name)
}
