// Package inputfile opens the files a user names on the command line or in
// the Action's inputs (a config, an intent file, a plan, a checkpoint, a
// proof) for reading. It accepts a regular file only, and finds out what
// the path is without ever blocking: a FIFO or a device named as a config
// would otherwise hang optr in open(2) or read(2), where no signal and no
// context can reach it.
package inputfile
