package actiontest

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
