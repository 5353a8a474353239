package githubtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3filter"
)

// validationOptions: GitHub's description declares no security schemes that
// matter here; tokens are checked by the fake itself.
var validationOptions = &openapi3filter.Options{
	AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
	MultiError:         true,
}

// validate checks the request (with its body already read into body)
// against the operation it was routed to. It allows the documented places
// where GitHub is more lenient than its description and go-github relies on
// it: POST …/issues/{n}/labels with a bare array of label names (go-github
// v60 AddLabelsToIssue sends that) and GET …/contents/ with an empty path
// (handled while routing).
func validate(rt *routed, body []byte) error {
	if rt.operation() == "POST /repos/{owner}/{repo}/issues/{issue_number}/labels" {
		var names []string
		if json.Unmarshal(body, &names) == nil {
			if len(names) == 0 {
				return fmt.Errorf("labels: the array of label names is empty")
			}
			body, _ = json.Marshal(map[string][]string{"labels": names})
		}
	}
	req := rt.specReq.Clone(rt.specReq.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	if len(body) == 0 {
		req.Body = http.NoBody
	}
	err := openapi3filter.ValidateRequest(req.Context(), &openapi3filter.RequestValidationInput{
		Request:    req,
		PathParams: rt.specParams,
		Route:      rt.route,
		Options:    validationOptions,
	})
	if err != nil {
		return fmt.Errorf("%s does not match GitHub's OpenAPI description: %w", rt.operation(), err)
	}
	return nil
}
