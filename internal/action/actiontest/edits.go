package actiontest

import "github.com/optr-dev/optr/internal/github/githubtest"

// Labeled edits an issues payload (issues.labeled.json, issues.opened.json):
// issue number carries the label, which sender, a user, just added.
func Labeled(number int, label, sender string) func(map[string]any) {
	return func(p map[string]any) {
		if l, ok := p["label"].(map[string]any); ok {
			l["name"] = label
		}
		issue := p["issue"].(map[string]any)
		issue["number"] = number
		issue["labels"] = []any{map[string]any{"name": label}}
		setSender(p, sender, "User")
	}
}

// Commented edits an issue_comment payload: sender, of senderType ("User",
// "Bot"), commented body on issue number.
func Commented(number int, body, sender, senderType string) func(map[string]any) {
	return func(p map[string]any) {
		p["issue"].(map[string]any)["number"] = number
		comment := p["comment"].(map[string]any)
		comment["body"] = body
		comment["user"].(map[string]any)["login"] = sender
		setSender(p, sender, senderType)
	}
}

func setSender(p map[string]any, login, typ string) {
	s := p["sender"].(map[string]any)
	s["login"] = login
	s["type"] = typ
}

// Closed edits a pull_request payload (pull_request.closed.json): pull
// request number, from branch head of the fake's default repository,
// closed — merged or not — by sender of senderType ("User", "Bot").
func Closed(number int, head string, merged bool, sender, senderType string) func(map[string]any) {
	return func(p map[string]any) {
		p["action"], p["number"] = "closed", number
		pr := p["pull_request"].(map[string]any)
		pr["number"], pr["merged"], pr["state"] = number, merged, "closed"
		h := pr["head"].(map[string]any)
		h["ref"], h["label"] = head, "octo-org:"+head
		h["repo"].(map[string]any)["full_name"] = githubtest.DefaultRepo
		p["repository"].(map[string]any)["full_name"] = githubtest.DefaultRepo
		setSender(p, sender, senderType)
	}
}
