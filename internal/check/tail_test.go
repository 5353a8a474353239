package check

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTailBuffer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{"nothing", 8, nil, ""},
		{"fits", 8, []string{"ab", "cd"}, "abcd"},
		{"exactly full", 4, []string{"ab", "cd"}, "abcd"},
		{"drops the front", 4, []string{"abc", "def"}, "…cdef"},
		{"one big write", 4, []string{"abcdefgh"}, "…efgh"},
		{"cut inside a character", 5, []string{"aé", "éé"}, "…éé"},
		{"trims whitespace", 16, []string{"\n  failed  \n"}, "failed"},
		{"invalid UTF-8 replaced", 8, []string{"a\xffb"}, "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tb := &tailBuffer{max: tt.max}
			for _, w := range tt.writes {
				if n, err := tb.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := tb.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzTailBuffer compares the buffer with the obvious reference: the last
// max bytes of everything written.
func FuzzTailBuffer(f *testing.F) {
	f.Add([]byte("hello world"), uint8(4), uint8(3))
	f.Add([]byte("ééééé"), uint8(3), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, maxB, chunk uint8) {
		limit := int(maxB%64) + 1
		step := int(chunk%16) + 1
		tb := &tailBuffer{max: limit}
		for i := 0; i < len(data); i += step {
			_, _ = tb.Write(data[i:min(i+step, len(data))])
		}
		ref := data[max(0, len(data)-limit):]
		if string(tb.buf) != string(ref) {
			t.Fatalf("kept %q, want %q", tb.buf, ref)
		}
		if s := tb.String(); !utf8.ValidString(s) || len(strings.TrimPrefix(s, "…")) > 3*limit {
			t.Fatalf("String() = %q: invalid or too long for max %d", s, limit)
		}
	})
}
