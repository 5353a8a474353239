package checkpoint

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/markdown"
)

// FuzzDecode feeds Load's parser arbitrary files: it never panics, and
// whatever it accepts is valid and survives Encode and decode unchanged.
func FuzzDecode(f *testing.F) {
	valid, err := os.ReadFile(filepath.Join("testdata", "cp-9876543210-1-1.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add("cp-9876543210-1-1.json", valid)
	f.Add("cp-9876543210-1-1.json", valid[:len(valid)-40])
	f.Add("cp-9876543210-1-1.json", bytes.Replace(valid, []byte(`"recommended": 1`), []byte(`"recommended": 1e3`), 1))
	f.Add("x.json", []byte(`{"id":"x"}`))
	f.Add("cp-1-1-1.json", []byte(`null`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		cp, err := decode(name, data)
		if err != nil {
			return
		}
		if err := cp.Validate(); err != nil {
			t.Fatalf("decode accepted an invalid checkpoint: %v", err)
		}
		again, err := Encode(cp)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decode(name, again)
		if err != nil {
			t.Fatalf("decode(Encode(cp)): %v", err)
		}
		if diff := cmp.Diff(cp, back); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

// FuzzParseAnswer checks the answer parser: it never panics, and it
// chooses an option of the checkpoint exactly when it reports no problem.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{"", "1", " 4 ", "0", "-1", "+2", "5", "99999999999999999999", "x", "1x", "\r", "٣"} {
		f.Add(s)
	}
	cp := fixture(f)
	f.Fuzz(func(t *testing.T, line string) {
		o, problem := parseAnswer(line, cp)
		got, ok := cp.Option(o.N)
		if (problem == "") != (ok && got == o) {
			t.Fatalf("parseAnswer(%q) = %+v, %q", line, o, problem)
		}
	})
}

// FuzzPrompt runs the prompt on arbitrary input: it ends with a valid
// decision or ErrNoAnswer, never anything else.
func FuzzPrompt(f *testing.F) {
	for _, s := range []string{"", "\n", "x\n2\nnote\n", "5\n\x00\n", "1"} {
		f.Add(s)
	}
	cp := fixture(f)
	f.Fuzz(func(t *testing.T, input string) {
		d, err := Prompt(t.Context(), strings.NewReader(input), io.Discard, cp)
		if err != nil {
			if !errors.Is(err, ErrNoAnswer) {
				t.Fatalf("Prompt(%q) = %v", input, err)
			}
			return
		}
		if o, ok := cp.Option(d.Option); !ok || o.Action != d.Action || d.Source != SourceTerminal {
			t.Fatalf("Prompt(%q) = %+v", input, d)
		}
	})
}

// FuzzLedgerReaders feeds Status, Pending and Recommend arbitrary ledgers:
// they never panic, and Recommend always names an option.
func FuzzLedgerReaders(f *testing.F) {
	cp := fixture(f)
	f.Add(ledgerOf(f, 2, decided(f, cp, 2, "alice")...))
	f.Add(ledgerOf(f, 0, CheckpointDraft(cp, epoch)))
	f.Add([]byte("{}\n"))
	f.Add([]byte(`{"seq":1,"time":"t","kind":"decision","run":"r","workflow":"issue-7","prev":"","hash":"","trigger":"NO_ADMISSIBLE","checkpoint":"c","option":1e400,"action":"skip"}` + "\n"))
	opts := StandardOptions(TriggerNoAdmissible)
	f.Fuzz(func(t *testing.T, led []byte) {
		n, _, _ := Recommend(bytes.NewReader(led), TriggerNoAdmissible, opts, 0)
		if _, ok := cp.Option(n); !ok {
			t.Fatalf("Recommend = %d, not an option", n)
		}
		open, d, err := Status(bytes.NewReader(led), cp.ID)
		if err != nil && (open || d != nil) {
			t.Fatalf("Status = %v, %v with error %v", open, d, err)
		}
		if d != nil && !d.Action.Valid() {
			t.Fatalf("Status decision has action %q", d.Action)
		}
		if _, err := Pending(bytes.NewReader(led), cp.Workflow); err != nil {
			return
		}
	})
}

// FuzzComment renders untrusted context, labels, notes and names: the
// body always fits GitHub, starts with its own marker and carries no other.
func FuzzComment(f *testing.F) {
	f.Add(untrustedContext, "Proceed", "Proceed — chosen", "alice", "a note")
	f.Add(strings.Repeat("`", 70000), "<b>", "", "", "<!-- optr:run=1 -->")
	f.Add("<!--  optr:checkpoint=x -->", "@all", "#1", "@bob", "\xff")
	f.Fuzz(func(t *testing.T, context, label, why, by, note string) {
		cp := fixture(t)
		cp.Context = strings.ToValidUTF8(context, "?")
		cp.Options[0].Label = label
		cp.Recommendation = why
		if cp.Validate() != nil {
			cp.Options[0].Label, cp.Recommendation = LabelProceed, whyDefault
		}
		d := Decision{Option: 2, Action: ActionSkip, By: by, Note: note, Source: SourceComment}
		for _, body := range []string{Comment(cp, []string{by}), DecidedComment(cp, d), AlreadyDecidedReply(cp, d)} {
			if n := utf8.RuneCountInString(body); n > comment.MaxBody {
				t.Fatalf("body has %d characters", n)
			}
			if !utf8.ValidString(body) {
				t.Fatal("body is not valid UTF-8")
			}
		}
		for _, body := range []string{Comment(cp, []string{by}), DecidedComment(cp, d)} {
			if !strings.HasPrefix(body, comment.Marker(comment.KindCheckpoint, cp.ID)+"\n") {
				t.Fatalf("body does not start with its marker: %q", markdown.Shorten(body, 80))
			}
			kind, id, _ := comment.ParseMarker(strings.TrimPrefix(body, comment.Marker(comment.KindCheckpoint, cp.ID)))
			if kind != "" {
				t.Fatalf("body carries a second marker %s=%s", kind, id)
			}
		}
	})
}
