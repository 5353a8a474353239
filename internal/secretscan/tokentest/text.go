package tokentest

import "strings"

// KeywordDense is n bytes of source code and prose dense with the words
// secret rules look for (key, token, secret, auth, password, access,
// credentials, api), holding no secret: the text redaction's and
// detection's benchmarks read.
func KeywordDense(n int) string {
	lines := []string{
		"func (c *Client) Token(ctx context.Context) (string, error) {\n",
		"\tkey := os.Getenv(\"API_KEY\") // the key is a secret; never log it\n",
		"\treturn c.auth.Refresh(ctx, key)\n",
		"}\n",
		"The agent reads the password from the vault and passes the token on.\n",
		"| access | credentials | they asked for a survey of tasks. |\n",
		"curl -s https://example.com/api/v1/items | jq '.items[].name'\n",
	}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(lines[i%len(lines)])
	}
	return b.String()[:n]
}
