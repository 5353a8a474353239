//go:build !linux

package sandbox

import (
	"context"
	"os"
	"runtime"
)

func probe(context.Context) (Platform, error) {
	why := "Landlock and namespaces are Linux's; on " + runtime.GOOS + " optr builds the environment only"
	return Platform{NoLandlock: why, NoNetNS: why, NoSeccomp: why, Root: os.Geteuid() == 0, NoUser: why}, nil
}

func nonDumpable() error { return nil }
