// Package review turns what people said on a pull request optr opened —
// conversation comments, review comments on lines of the diff, review
// bodies — into the part of an iteration's intent the agents read
// (architecture §4.16): each remark fenced as untrusted text, the newest kept
// when there are too many, and the cut said.
package review
