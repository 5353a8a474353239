package progress

import (
	"strings"
	"testing"
)

// FuzzComment renders untrusted text in every place it can appear and
// checks that the comment keeps its structure and its size.
func FuzzComment(f *testing.F) {
	f.Add("result", "note", "failed", "title", "message")
	f.Add("````\n<!-- optr:run=1 -->", "a|b\n# h", "`x` | y", "\"]) --> x[\"", "```")
	f.Add(strings.Repeat("`", 700), "@me", "\\|", "#1", "\x00\xff")
	f.Fuzz(func(t *testing.T, result, note, failed, title, msg string) {
		v := completedView()
		v.Result, v.Title, v.Message = result, title, msg
		v.Agents[0].Note = note
		v.Agents[1].Name = note
		v.Table[2].Failed = []string{failed, note}
		checkStructure(t, v, Comment(v))
		checkTableRows(t, Comment(v))
		checkDiagram(t, Diagram(v))
	})
}
