package action

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSummaryAppends(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "summary")
	if err := os.WriteFile(path, []byte("# earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewSummary(path)
	for _, md := range []string{"## optr\n", "| a | b |\n"} {
		if cut, err := s.Append(md); err != nil || cut {
			t.Fatalf("Append(%q) = %v, %v", md, cut, err)
		}
	}
	b, _ := os.ReadFile(path)
	if string(b) != "# earlier step\n## optr\n| a | b |\n" {
		t.Errorf("summary = %q", b)
	}
}

func TestSummaryWithoutFile(t *testing.T) {
	t.Parallel()
	if cut, err := NewSummary("").Append("# x"); cut || err != nil {
		t.Errorf("Append without a path = %v, %v", cut, err)
	}
}

func TestSummaryStaysUnderTheLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		existing int
		markdown string
		wantCut  bool
		wantErr  error
	}{
		{name: "fits exactly", existing: MaxSummary - 10, markdown: "0123456789"},
		{name: "one byte over", existing: MaxSummary - 10, markdown: "0123456789x", wantErr: ErrSummaryFull, wantCut: true},
		{name: "big result", existing: 1000, markdown: strings.Repeat("line of text\n", 200_000), wantCut: true},
		{name: "multibyte text cut on a character", existing: 0, markdown: strings.Repeat("é", MaxSummary), wantCut: true},
		{name: "cut inside a code fence", existing: 0, markdown: "# r\n\n````text\n" + strings.Repeat("```\ncode\n", 200_000) + "````\n", wantCut: true},
		{name: "already full", existing: MaxSummary, markdown: "x", wantCut: true, wantErr: ErrSummaryFull},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "summary")
			before := strings.Repeat("a", tt.existing)
			if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
				t.Fatal(err)
			}
			cut, err := NewSummary(path).Append(tt.markdown)
			if cut != tt.wantCut || !errors.Is(err, tt.wantErr) {
				t.Fatalf("Append = %v, %v; want %v, %v", cut, err, tt.wantCut, tt.wantErr)
			}
			b, _ := os.ReadFile(path)
			if len(b) > MaxSummary {
				t.Fatalf("summary is %d bytes, limit %d", len(b), MaxSummary)
			}
			if !strings.HasPrefix(string(b), before) {
				t.Fatal("the earlier content changed")
			}
			added := string(b[len(before):])
			if !utf8.ValidString(added) {
				t.Fatal("the cut split a character")
			}
			switch {
			case tt.wantErr != nil:
				if added != "" {
					t.Errorf("wrote %d bytes into a full summary", len(added))
				}
			case tt.wantCut:
				if !strings.HasSuffix(added, summaryCutNote) {
					t.Errorf("a cut summary does not end with the note: %q", added[max(0, len(added)-200):])
				}
				if openFence(strings.TrimSuffix(added, summaryCutNote)) != "" {
					t.Error("the cut left a code fence open")
				}
			default:
				if added != tt.markdown {
					t.Errorf("added %d bytes, want the %d given", len(added), len(tt.markdown))
				}
			}
		})
	}
}

func TestOpenFence(t *testing.T) {
	t.Parallel()
	tests := []struct{ md, want string }{
		{"", ""},
		{"```\ncode\n```\n", ""},
		{"```go\ncode\n", "```"},
		{"````\n```\n", "````"},
		{"~~~\n```\n", "~~~"},
		{"    ```\nindented code\n", ""},
		{"``` not `a` fence\n", ""},
		{"```\n```` \n", ""},
		{"``\n", ""},
	}
	for _, tt := range tests {
		if got := openFence(tt.md); got != tt.want {
			t.Errorf("openFence(%q) = %q, want %q", tt.md, got, tt.want)
		}
	}
}
