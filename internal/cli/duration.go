package cli

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// durationValue is a pflag.Value for a duration that also takes bare
// seconds, as the seed's handler does: "60" is a minute, like "60s" or "1m".
type durationValue time.Duration

func newDurationValue(d time.Duration, p *time.Duration) *durationValue {
	*p = d
	return (*durationValue)(p)
}

// Set implements pflag.Value.
func (d *durationValue) Set(s string) error {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(secs) || math.IsInf(secs, 0) || math.Abs(secs) > math.MaxInt64/float64(time.Second) {
			return fmt.Errorf("%q is not a usable number of seconds", s)
		}
		*d = durationValue(secs * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is neither a duration (30s, 5m) nor a number of seconds", s)
	}
	*d = durationValue(v)
	return nil
}

// String implements pflag.Value.
func (d *durationValue) String() string { return time.Duration(*d).String() }

// Type implements pflag.Value.
func (d *durationValue) Type() string { return "duration" }
