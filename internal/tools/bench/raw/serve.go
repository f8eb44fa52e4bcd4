package raw

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/rewindnet/rewind/internal/tools/cputime"
)

// Serve runs a Loop (outSize-byte datagrams, rate ticks a second) as a
// process of its own, for a benchmark that measures it in windows
// interleaved with its own (bench fleet): it writes "addr=HOST:PORT" on
// out, then answers every line read from in with "IN OUT CPU_NS PEERS":
// the datagrams read and written so far, this process's CPU time
// (user+system, nanoseconds) and the peers heard. The parent pauses and resumes the process
// between its windows (SIGSTOP, SIGCONT), so that the loop's CPU is never
// counted in the parent's process, nor the parent's in the loop's. It
// returns when in ends or ctx is done.
func Serve(ctx context.Context, in io.Reader, out io.Writer, outSize, rate int) error {
	l, err := Start(outSize, rate)
	if err != nil {
		return err
	}
	defer l.Close()
	if _, err := fmt.Fprintf(out, "addr=%s\n", l.Addr()); err != nil {
		return err
	}
	lines := make(chan struct{})
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			lines <- struct{}{}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-lines:
			if !ok {
				return nil
			}
			i, o := l.Counts()
			if _, err := fmt.Fprintf(out, "%d %d %d %d\n", i, o, cputime.Process().Nanoseconds(), l.Peers()); err != nil {
				return err
			}
		}
	}
}
