package llm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ImageCopilotCLI is where the optr image installs the Copilot CLI.
const ImageCopilotCLI = "/usr/local/bin/copilot"

// CopilotCLIVersion is the Copilot CLI release optr is built and tested
// with: it speaks the protocol (version 3) of the pinned
// github.com/github/copilot-sdk/go v1.0.14. The image's Dockerfile and
// .ci/run install this release from npm.
const CopilotCLIVersion = "1.0.102"

// findCopilotCLI returns the Copilot CLI to run: OPTR_COPILOT_CLI, else the
// image's, else copilot on getenv's PATH. The error says where it looked
// and how to install it.
func findCopilotCLI(getenv func(string) string) (string, error) {
	if p := getenv("OPTR_COPILOT_CLI"); p != "" {
		if !executable(p) {
			return "", fmt.Errorf("OPTR_COPILOT_CLI is %q, which is not an executable file; point it at the Copilot CLI (npm @github/copilot)", p)
		}
		return p, nil
	}
	if executable(ImageCopilotCLI) {
		return ImageCopilotCLI, nil
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			continue
		}
		if p := filepath.Join(dir, "copilot"); executable(p) {
			return p, nil
		}
	}
	return "", errors.New("the Copilot CLI is not installed: OPTR_COPILOT_CLI is not set, " + ImageCopilotCLI + " does not exist and no copilot is on PATH; install it with `npm install -g @github/copilot@" + CopilotCLIVersion + "` or set OPTR_COPILOT_CLI to its path")
}

// executable reports whether p is a regular file someone may execute.
func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
