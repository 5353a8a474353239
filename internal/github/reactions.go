package github

import (
	"context"
	"fmt"
)

// reactions are the contents GitHub accepts for a reaction.
var reactions = map[string]bool{
	"+1": true, "-1": true, "laugh": true, "confused": true,
	"heart": true, "hooray": true, "rocket": true, "eyes": true,
}

// React adds a reaction to an issue comment, or to the issue itself when
// commentID is 0. content is one of +1, -1, laugh, confused, heart, hooray,
// rocket or eyes (👀, "seen, working on it"). Reacting twice is harmless.
func (c *Client) React(ctx context.Context, issue int, commentID int64, content string) error {
	if !reactions[content] {
		return fmt.Errorf("react with %q: not a GitHub reaction (use +1, -1, laugh, confused, heart, hooray, rocket or eyes)", content)
	}
	var err error
	if commentID == 0 {
		_, _, err = c.gh.Reactions.CreateIssueReaction(ctx, c.owner, c.repo, issue, content)
		if err != nil {
			return fmt.Errorf("react %s to issue #%d: %w", content, issue, err)
		}
		return nil
	}
	_, _, err = c.gh.Reactions.CreateIssueCommentReaction(ctx, c.owner, c.repo, commentID, content)
	if err != nil {
		return fmt.Errorf("react %s to comment %d on issue #%d: %w", content, commentID, issue, err)
	}
	return nil
}
