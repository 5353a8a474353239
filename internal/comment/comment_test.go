package comment

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMarkerRoundTrip(t *testing.T) {
	t.Parallel()
	body := "hello\n" + Marker(KindCheckpoint, "cp-12.a") + "\nrest"
	kind, id, ok := ParseMarker(body)
	if !ok || kind != KindCheckpoint || id != "cp-12.a" {
		t.Fatalf("ParseMarker = %q %q %v", kind, id, ok)
	}
	if !HasMarker(body, KindCheckpoint, "cp-12.a") || HasMarker(body, KindRun, "cp-12.a") {
		t.Fatal("HasMarker disagrees with Marker")
	}
	if _, _, ok := ParseMarker("<!-- optr:run=../x -->"); ok {
		t.Fatal("a marker id with a slash must not parse")
	}
}

func TestFit(t *testing.T) {
	t.Parallel()
	short := "x"
	if Fit(short, "") != short {
		t.Fatal("short body changed")
	}
	long := strings.Repeat("é", MaxBody+10)
	got := Fit(long, "result.md")
	if n := utf8.RuneCountInString(got); n > MaxBody {
		t.Fatalf("Fit left %d characters, limit %d", n, MaxBody)
	}
	if !utf8.ValidString(got) || !strings.Contains(got, "result.md") {
		t.Fatal("Fit split a character or lost the pointer")
	}
}
