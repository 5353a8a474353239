package config

import (
	"fmt"

	"github.com/goccy/go-yaml/ast"

	"github.com/goccy/go-yaml/token"
	"github.com/optr-dev/optr/internal/markdown"
)

// kindOf names the YAML kind of a resolved node.
func kindOf(n ast.Node) string {
	switch x := n.(type) {
	case *ast.StringNode, *ast.LiteralNode:
		return "string"
	case *ast.TagNode:
		if x.Start != nil && x.Start.Value == "!!str" {
			return "string"
		}
		return "tag"
	case *ast.IntegerNode:
		return "integer"
	case *ast.FloatNode:
		return "float"
	case *ast.BoolNode:
		return "boolean"
	case *ast.NullNode:
		return "null"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "mapping"
	case *ast.SequenceNode:
		return "list"
	}
	return "other"
}

// describe says what n is, for "want X, got Y" messages.
func describe(n ast.Node) string {
	text := ""
	if tk := n.GetToken(); tk != nil {
		text = tk.Value
	}
	switch kindOf(n) {
	case "string":
		return "the string " + markdown.Quote(text, maxQuote)
	case "integer", "float":
		return "the number " + text
	case "boolean":
		return text
	case "null":
		return "no value"
	case "mapping":
		return "a mapping"
	case "list":
		return "a list"
	case "tag":
		return fmt.Sprintf("a value tagged %s (only !!str is understood)", text)
	}
	return markdown.Quote(text, maxQuote)
}

// maxQuote bounds how much of a value a message quotes.
const maxQuote = 60

func nodePlace(n ast.Node) place {
	if n == nil {
		return place{}
	}
	return tokenPlace(n.GetToken())
}

func tokenPlace(tk *token.Token) place {
	if tk == nil || tk.Position == nil {
		return place{}
	}
	return place{line: tk.Position.Line, column: tk.Position.Column}
}

func tokenText(n ast.Node) string {
	if tk := n.GetToken(); tk != nil {
		return tk.Value
	}
	return ""
}
