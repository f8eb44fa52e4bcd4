//go:build linux

package bench

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// threadScheds returns the niceness and CPU set of each of this
// process's threads, as "nice N cpus C,..." lines.
func threadScheds(t testing.TB) []string {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range tasks {
		var tid int
		fmt.Sscan(task.Name(), &tid)
		prio, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
		if err != nil {
			continue // the thread ended
		}
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &set); err != nil {
			continue
		}
		out = append(out, fmt.Sprintf("nice %d cpus %s", 20-prio, cpuList(set)))
	}
	return out
}

func cpuList(set unix.CPUSet) string {
	var cs []string
	for c := range 1024 {
		if set.IsSet(c) {
			cs = append(cs, fmt.Sprint(c))
		}
	}
	return strings.Join(cs, ",")
}

// TestStartSchedChild is the child of TestStartSched: it prints its
// threads' scheduling (run only with the argument schedchild).
func TestStartSchedChild(t *testing.T) {
	if flag.Arg(0) != "schedchild" {
		t.Skip("the child of TestStartSched")
	}
	fmt.Println(strings.Join(threadScheds(t), "\n"))
}

// TestStartSched: a child started with a niceness and a CPU runs every
// thread at this process's niceness plus that one, on that CPU only,
// and once it ended none of this process's threads runs so (the thread
// that forked it ended too).
func TestStartSched(t *testing.T) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	cpu := 0
	for !set.IsSet(cpu) {
		cpu++
	}
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	nice := min(20-prio+3, 19)
	var out bytes.Buffer
	cmd, err := StartSched(Sched{Nice: 3, CPUs: []int{cpu}}, []string{os.Args[0]}, &out, os.Stderr, "-test.run=^TestStartSchedChild$", "schedchild")
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, out.String())
	}
	want := fmt.Sprintf("nice %d cpus %d", nice, cpu)
	lines := 0
	for _, l := range strings.Split(out.String(), "\n") {
		if !strings.HasPrefix(l, "nice ") {
			continue
		}
		lines++
		if l != want {
			t.Errorf("a thread of the child: %q, want %q", l, want)
		}
	}
	if lines == 0 {
		t.Fatalf("the child said nothing of its threads:\n%s", out.String())
	}
	// The forking thread ends just after the child: wait for it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		as := 0
		for _, l := range threadScheds(t) {
			if l == want {
				as++
			}
		}
		if as == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of this process's threads run as the child did; want none", as)
		}
	}
}

// TestProcCPU: this process's CPU by /proc/PID/stat grows as it spins
// (until it has grown, however long a loaded machine takes), and a
// process that does not exist has none.
func TestProcCPU(t *testing.T) {
	a := ProcCPU(os.Getpid())
	deadline := time.Now().Add(time.Minute)
	for ProcCPU(os.Getpid()) < a+50*time.Millisecond {
		if time.Now().After(deadline) {
			t.Fatalf("CPU %v after a minute's spin, %v before", ProcCPU(os.Getpid()), a)
		}
		for start := time.Now(); time.Since(start) < 10*time.Millisecond; {
		}
	}
	if c := ProcCPU(1 << 30); c != 0 {
		t.Errorf("no such process: %v", c)
	}
}
