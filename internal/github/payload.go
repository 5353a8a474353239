package github

import (
	"encoding/json"
	"os"
)

// DefaultBranchOf returns repository.default_branch of a webhook payload
// (every repository event carries it), or "" when the payload has none or
// is not JSON. Given to Options.DefaultBranch, it saves the request that
// would look the branch up.
func DefaultBranchOf(payload []byte) string {
	var e struct {
		Repository struct {
			DefaultBranch string `json:"default_branch"`
		} `json:"repository"`
	}
	if json.Unmarshal(payload, &e) != nil {
		return ""
	}
	return e.Repository.DefaultBranch
}

// DefaultBranchOfEvent is DefaultBranchOf the payload file at path
// (GITHUB_EVENT_PATH); "" when it cannot be read.
func DefaultBranchOfEvent(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return DefaultBranchOf(data)
}
