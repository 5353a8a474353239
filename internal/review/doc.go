// Package review turns what people said on a pull request optr opened —
// the `/optr run` request that started the run, conversation comments,
// review comments on lines of the diff, review bodies — into the part of
// an iteration's intent the agents read (architecture §4.16). Only people
// with write permission (and optr itself) fill it: remarks by anyone else
// are counted, never quoted. Each remark is fenced as untrusted text; the
// oldest are kept when there are too many, and the cut is said.
package review
