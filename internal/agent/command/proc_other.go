//go:build !unix

package command

import (
	"errors"
	"io/fs"

	"github.com/optr-dev/optr/internal/agent"
)

func startFailure(err error) (agent.Class, string) {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return agent.Fatal, "bad_config"
	}
	return agent.Transient, "start_failed"
}
