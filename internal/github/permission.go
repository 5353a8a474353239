package github

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// Permission returns user's permission on the repository as GitHub reports
// it (admin, write, read or none; maintain counts as write and triage as
// read), through GET /repos/{owner}/{repo}/collaborators/{user}/permission.
// author_association is not a permission and is never used.
func (c *Client) Permission(ctx context.Context, user string) (string, error) {
	if user == "" {
		return "", fmt.Errorf("check permission: no user given")
	}
	p, _, err := c.gh.Repositories.GetPermissionLevel(ctx, c.owner, c.repo, user)
	if err != nil {
		if statusOf(err) == http.StatusNotFound {
			return "", fmt.Errorf("check %s's permission on %s: not a collaborator, or the token may not read collaborators: %w", user, c.Repository(), err)
		}
		return "", fmt.Errorf("check %s's permission on %s: %w", user, c.Repository(), err)
	}
	if p.GetPermission() == "" {
		return "", fmt.Errorf("check %s's permission on %s: GitHub answered without a permission", user, c.Repository())
	}
	return p.GetPermission(), nil
}

// CanWrite reports whether user may make optr act: only a repository
// permission of write, maintain or admin allows it. A sender of type "Bot"
// is refused without a request (so optr never answers itself or another
// bot), and any error refuses too. reason says why, for the log or a reply.
func (c *Client) CanWrite(ctx context.Context, user, senderType string) (bool, string) {
	switch {
	case strings.EqualFold(senderType, "Bot"):
		return false, fmt.Sprintf("%s is a bot; bots may not trigger optr", user)
	case user == "":
		return false, "the event names no sender; refusing"
	}
	p, err := c.Permission(ctx, user)
	if err != nil {
		return false, fmt.Sprintf("could not confirm %s's permission, so refusing: %v", user, err)
	}
	switch p {
	case "admin", "maintain", "write":
		return true, fmt.Sprintf("%s has %s permission", user, p)
	}
	return false, fmt.Sprintf("%s has %s permission; only users with write, maintain or admin permission may trigger optr", user, p)
}
