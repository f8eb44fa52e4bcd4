//go:build !unix

package webdoom

// rawWrites: no non-blocking write(2) here; an nbConn's writes block as
// a plain connection's do.
const rawWrites = false

func rawWrite(fd uintptr, p []byte) (int, error) { panic("webdoom: no raw writes on this platform") }
