package llm

import "net/url"

// checkEndpoint fails unless raw is an absolute http or https URL. from
// says where the value came from, for the error message.
func checkEndpoint(name, provider, raw, from string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, badConfig("agent %q (%s): %s is %q, not an http(s) URL; set it to the API's base URL, e.g. https://host/v1", name, provider, from, raw)
	}
	return u, nil
}
