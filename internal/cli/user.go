package cli

// user names the local person deciding, for the ledger.
func (c *CLI) user() string {
	for _, k := range []string{"OPTR_USER", "USER", "USERNAME"} {
		if v := c.Getenv(k); v != "" {
			return v
		}
	}
	return "local user"
}
