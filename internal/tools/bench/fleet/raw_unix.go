//go:build unix

package fleet

import "syscall"

// pause stops the bots, then the loop (nothing is sent to a stopped
// loop); resume starts them the other way round.
func (l *rawLoop) pause() {
	for _, b := range l.bots {
		b.Process.Signal(syscall.SIGSTOP)
	}
	l.loop.Process.Signal(syscall.SIGSTOP)
}

func (l *rawLoop) resume() {
	l.loop.Process.Signal(syscall.SIGCONT)
	for _, b := range l.bots {
		b.Process.Signal(syscall.SIGCONT)
	}
}
