package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The permission check answers quickly: a maintainer waiting on an issue is
// better served by "could not be checked, re-run" in seconds than by a
// refusal after half a minute of retries.
const (
	// permissionTimeout bounds the whole check, retries included.
	permissionTimeout = 10 * time.Second
	// permissionRetries and permissionMaxWait bound its retries.
	permissionRetries = 1
	permissionMaxWait = 2 * time.Second
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

// Access is the outcome of an authorisation.
type Access int

const (
	// Denied: GitHub answered, and the sender may not make optr act (a
	// permission below write, not a collaborator, or a bot).
	Denied Access = iota
	// Allowed: the sender has write, maintain or admin permission.
	Allowed
	// Unchecked: the permission could not be checked (GitHub failed, timed
	// out, rate-limited or refused the token). optr still refuses, but tells
	// the sender that the check failed and the run should be retried,
	// never that they lack permission.
	Unchecked
)

// String implements fmt.Stringer.
func (a Access) String() string {
	switch a {
	case Allowed:
		return "allowed"
	case Unchecked:
		return "unchecked"
	}
	return "denied"
}

// Authorization is the answer to "may this sender make optr act?".
type Authorization struct {
	// Access is allowed, denied or unchecked; only Allowed lets optr act.
	Access Access
	// Permission is what GitHub reported (admin, write, read, none), empty
	// for a bot or when unchecked.
	Permission string
	// Reason says why in one line, for the log.
	Reason string
	// Err is the error that left the permission unchecked, else nil.
	Err error
}

// Authorize decides whether user may make optr act: only a repository
// permission of write, maintain or admin allows it. A sender of type "Bot"
// is denied without a request (so optr never answers itself or another
// bot). A user GitHub does not know as a collaborator (404) is denied; any
// other failure leaves the permission Unchecked, which refuses as well.
// The check takes at most about ten seconds and retries once, briefly.
func (c *Client) Authorize(ctx context.Context, user, senderType string) Authorization {
	switch {
	case strings.EqualFold(senderType, "Bot"):
		return Authorization{Access: Denied, Reason: fmt.Sprintf("%s is a bot; bots may not trigger optr", user)}
	case user == "":
		return Authorization{Access: Denied, Reason: "the event names no sender; refusing"}
	}
	ctx, cancel := context.WithTimeout(ctx, permissionTimeout)
	defer cancel()
	p, err := c.Permission(withRetryBound(ctx, permissionRetries, permissionMaxWait), user)
	switch {
	case err != nil && statusOf(err) == http.StatusNotFound:
		return Authorization{Access: Denied, Permission: "none", Reason: fmt.Sprintf("%s is not a collaborator on %s", user, c.Repository())}
	case err != nil:
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			err = fmt.Errorf("check %s's permission on %s: no answer within %s: %w", user, c.Repository(), permissionTimeout, err)
		}
		return Authorization{Access: Unchecked, Err: err,
			Reason: fmt.Sprintf("could not check %s's permission, so refusing; re-run the job to try again: %v", user, err)}
	}
	switch p {
	case "admin", "maintain", "write":
		return Authorization{Access: Allowed, Permission: p, Reason: fmt.Sprintf("%s has %s permission", user, p)}
	}
	return Authorization{Access: Denied, Permission: p,
		Reason: fmt.Sprintf("%s has %s permission; only users with write, maintain or admin permission may trigger optr", user, p)}
}
