package bench

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// HeapInuse returns the live heap in use after a GC.
func HeapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// RSSMB returns this process's resident memory (VmRSS), in MiB; 0 where
// the system does not say.
func RSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// LoadAvg returns the machine's 1-minute load average, or "?".
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

// SocketDrops returns the drops column of /proc/net/udp for the IPv4
// socket on 127.0.0.1:port: datagrams the kernel dropped because the
// socket's receive buffer was full. 0 where there is no such file.
func SocketDrops(port uint16) uint64 {
	b, err := os.ReadFile("/proc/net/udp")
	if err != nil {
		return 0
	}
	local := fmt.Sprintf("0100007F:%04X", port)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 12 && f[1] == local {
			n, _ := strconv.ParseUint(f[len(f)-1], 10, 64)
			return n
		}
	}
	return 0
}

// Ms formats d in milliseconds with two decimals.
func Ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 2, 64) }

// RunDelay returns how long this process's threads have waited, runnable,
// for a CPU (the second field of /proc/self/task/*/schedstat, summed over
// the threads there now): the time the kernel ran something else while
// the process had work. 0 where the system does not say.
func RunDelay() time.Duration {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) >= 2 {
			ns, _ := strconv.ParseInt(f[1], 10, 64)
			sum += time.Duration(ns)
		}
	}
	return sum
}

// GCCycles returns the garbage collections this process has completed.
func GCCycles() uint32 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.NumGC
}

// ProcCPU returns the CPU time (user and system, every thread) of the
// process pid so far, from /proc/PID/stat in the kernel's clock ticks of
// 10 ms (USER_HZ, 100 on Linux); 0 where the system does not say.
func ProcCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // after the command's name, which may hold spaces
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3, the state: utime is field 14
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}
