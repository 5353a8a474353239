//go:build !linux

package child

// Init does nothing outside Linux: there is no launcher there.
func Init() {}
