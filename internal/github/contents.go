package github

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// readFile returns the content of a repository file at ref, or nil when it
// does not exist. It asks for the raw media type, which GitHub serves for
// files up to 100 MB in one request (the JSON form stops at 1 MB).
func (c *Client) readFile(ctx context.Context, path, ref string) ([]byte, error) {
	u := fmt.Sprintf("repos/%s/%s/contents/%s?ref=%s", c.owner, c.repo, escapePath(path), url.QueryEscape(ref))
	req, err := c.gh.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	req.Header.Set("Accept", "application/vnd.github.raw+json")
	var buf bytes.Buffer
	resp, err := c.gh.Do(ctx, req, &buf)
	if err != nil {
		if statusOf(err) == http.StatusNotFound {
			return nil, nil
		}
		return nil, fmt.Errorf("read %s at %.7s: %w", path, ref, err)
	}
	// A directory comes back as a JSON array even with the raw type.
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && bytes.HasPrefix(bytes.TrimSpace(buf.Bytes()), []byte("[")) {
		return nil, fmt.Errorf("read %s: it is a directory in the repository, not a file", path)
	}
	return buf.Bytes(), nil
}

// escapePath escapes each segment of a slash-separated path for a URL.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// ReadFile returns the content of the repository file path on branch
// (empty: the default branch), or nil when it does not exist there.
func (c *Client) ReadFile(ctx context.Context, branch, path string) ([]byte, error) {
	if branch == "" {
		b, err := c.DefaultBranch(ctx)
		if err != nil {
			return nil, err
		}
		branch = b
	}
	return c.readFile(ctx, path, "heads/"+branch)
}
