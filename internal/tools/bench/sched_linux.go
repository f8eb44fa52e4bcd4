//go:build linux

package bench

import (
	"errors"
	"io"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// StartSched is Start with the child scheduled as s says. Linux keeps a
// niceness and a CPU set per thread, and a child takes those of the
// thread that forks it: the child is forked from a thread of this
// process's own given s's niceness and CPUs, locked to a goroutine that
// waits for the child's end and then ends it (the child's death signal,
// DieWithParent, comes when the thread that forked it ends; Go makes the
// threads a locked thread asks for from a template thread of its own),
// so that no other thread of this process runs as s says. The main
// thread, which Go would keep rather than end, forks no such child.
func StartSched(s Sched, command []string, stdout, stderr io.Writer, args ...string) (*exec.Cmd, error) {
	if s.Nice == 0 && len(s.CPUs) == 0 {
		return Start(command, stdout, stderr, args...)
	}
	type started struct {
		cmd *exec.Cmd
		err error
	}
	ch := make(chan started, 1)
	go func() {
		runtime.LockOSThread() // unlocked only on the main thread: the others end with the goroutine
		if unix.Gettid() == unix.Getpid() {
			// Held by this goroutine meanwhile: the next one runs on
			// another thread.
			cmd, err := StartSched(s, command, stdout, stderr, args...)
			runtime.UnlockOSThread()
			ch <- started{cmd, err}
			return
		}
		if err := s.apply(); err != nil {
			ch <- started{nil, err}
			return
		}
		cmd, err := Start(command, stdout, stderr, args...)
		ch <- started{cmd, err}
		if err == nil {
			waitEnd(cmd.Process.Pid)
		}
	}()
	r := <-ch
	return r.cmd, r.err
}

// waitEnd waits until the child pid has ended, leaving it to be reaped
// (by exec.Cmd.Wait).
func waitEnd(pid int) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// apply gives the calling thread s's niceness (added to its own, at most
// 19) and CPUs.
func (s Sched) apply() error {
	if s.Nice != 0 {
		prio, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
		if err != nil {
			return err
		}
		nice := min(max(20-prio+s.Nice, -20), 19) // the system call's answer is 20 - nice
		if err := unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), nice); err != nil {
			return err
		}
	}
	if len(s.CPUs) > 0 {
		var set unix.CPUSet
		for _, c := range s.CPUs {
			set.Set(c)
		}
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			return err
		}
	}
	return nil
}
