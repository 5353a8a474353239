package config

import (
	"fmt"
	"time"
)

// Duration is a time.Duration written as "5m", "30s" in YAML and JSON.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats d like time.Duration ("5m0s").
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText writes d as time.Duration's text ("5m0s"), so a resolved
// config reads back the same in YAML and JSON.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a positive duration such as "5m", "30s" or "1h30m".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration: write a number with a unit, such as \"30s\", \"5m\" or \"1h30m\"", b)
	}
	if v <= 0 {
		return fmt.Errorf("%q is not positive: write a duration greater than zero, such as \"30s\"", b)
	}
	*d = Duration(v)
	return nil
}
