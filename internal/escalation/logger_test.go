package escalation

import (
	"bytes"
	"testing"
	"time"
)

func TestLoggerOneLinePerMessage(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	l := &logger{w: &b, now: func() time.Time { return t0 }}
	l.printf("agent said %s", "x\n::set-output name=a::b\r\n::error::c\rd")
	l.errorf("bad")
	want := "[2026-03-04 05:06:07] [optr] agent said x | ::set-output name=a::b | ::error::c | d\n[2026-03-04 05:06:07] [optr] ERROR: bad\n"
	if got := b.String(); got != want {
		t.Errorf("log:\n got %q\nwant %q", got, want)
	}
	var nilLogger *logger
	nilLogger.printf("discarded") // must not panic
}
