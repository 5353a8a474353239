package github

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"

	gh "github.com/google/go-github/v60/github"
)

// CreateBlob stores size bytes read from open as a git blob in the
// repository (POST git/blobs) and returns its sha. The request body is
// streamed, base64-encoded on the way: a file of tens of MiB is never held
// in memory, as go-github's CreateBlob would hold it (its content and then
// its JSON). A retried request calls open again.
func (c *Client) CreateBlob(ctx context.Context, size int64, open func() (io.ReadCloser, error)) (string, error) {
	req, err := c.gh.NewRequest(http.MethodPost, fmt.Sprintf("repos/%s/%s/git/blobs", c.owner, c.repo), nil)
	if err != nil {
		return "", err
	}
	const head, tail = `{"encoding":"base64","content":"`, `"}`
	body := func() (io.ReadCloser, error) {
		src, err := open()
		if err != nil {
			return nil, err
		}
		pr, pw := io.Pipe()
		go func() {
			defer src.Close()
			_, err := io.WriteString(pw, head)
			if err == nil {
				enc := base64.NewEncoder(base64.StdEncoding, pw)
				var n int64
				n, err = io.Copy(enc, io.LimitReader(src, size+1))
				if err == nil && n != size {
					err = fmt.Errorf("it changed while it was being stored: %d bytes, not %d", n, size)
				}
				if err == nil {
					err = enc.Close()
				}
			}
			if err == nil {
				_, err = io.WriteString(pw, tail)
			}
			pw.CloseWithError(err)
		}()
		return pr, nil
	}
	if req.Body, err = body(); err != nil {
		return "", fmt.Errorf("store a blob: %w", err)
	}
	req.GetBody = body
	req.ContentLength = int64(len(head)) + int64(base64.StdEncoding.EncodedLen(int(size))) + int64(len(tail))
	req.Header.Set("Content-Type", "application/json")
	var blob gh.Blob
	if _, err := c.gh.Do(ctx, req, &blob); err != nil {
		return "", fmt.Errorf("store a blob: %w", err)
	}
	if blob.GetSHA() == "" {
		return "", fmt.Errorf("store a blob: the answer holds no sha")
	}
	return blob.GetSHA(), nil
}
