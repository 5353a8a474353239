//go:build !unix

package datalake

import "io/fs"

// hardLinked cannot tell without a link count: no file is taken for one.
func hardLinked(fs.FileInfo) bool { return false }
