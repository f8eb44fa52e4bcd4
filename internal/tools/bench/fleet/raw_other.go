//go:build !unix

package fleet

// pause and resume do nothing where processes cannot be stopped: the
// raw loop then runs beside the server's windows too.
func (l *rawLoop) pause()  {}
func (l *rawLoop) resume() {}
