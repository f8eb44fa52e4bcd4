package webdoom

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Static files, as WebDoom's server serves them (content type by
// extension, content-length, no-store for the app and the engine, a year
// and immutable for /wads/*), and beyond it:
//
//   - every file answers Range and conditional requests (http.ServeContent);
//     /wads/* also carries a strong ETag (size and modification time), so
//     a browser resumes or revalidates a 27 MB IWAD instead of fetching it
//     again;
//   - app and engine files (.html .js .css .json .wasm) go gzip-compressed
//     to a client that accepts gzip and asks for no range: a precompressed
//     NAME.gz beside the file when it is at least as new, else compressed
//     here once and kept in memory (gzipCacheMax bytes in all). The client
//     receives the same bytes once decoded.

const (
	// gzipCacheMax bounds the compressed app files kept in memory.
	gzipCacheMax = 64 << 20
	// gzipFileMax is the largest file compressed on the fly.
	gzipFileMax = 32 << 20
)

var gzipTypes = map[string]bool{".html": true, ".js": true, ".css": true, ".json": true, ".wasm": true}

func (f *webDoomFiles) serve(rw http.ResponseWriter, r *http.Request, path string) {
	if path == "/" {
		path = "/index.html"
	}
	for _, m := range f.mounts {
		rel, ok := strings.CutPrefix(path, m.prefix)
		if !ok || rel == "" || !fs.ValidPath(rel) {
			continue
		}
		file, err := m.root.Open(rel)
		if err != nil {
			continue
		}
		st, err := file.Stat()
		if err != nil || !st.Mode().IsRegular() {
			file.Close()
			continue
		}
		h := rw.Header()
		for k, v := range webDoomSecurityHeaders {
			h.Set(k, v)
		}
		ext := filepath.Ext(rel)
		ct, ok := webDoomMIME[ext]
		if !ok {
			ct = "application/octet-stream"
		}
		h.Set("Content-Type", ct)
		if m.prefix == "/wads/" {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
			h.Set("ETag", fmt.Sprintf(`"%x-%x"`, st.Size(), st.ModTime().UnixNano()))
		} else {
			h.Set("Cache-Control", "no-store")
		}
		if m.prefix != "/wads/" && gzipTypes[ext] {
			h.Add("Vary", "Accept-Encoding")
			if r.Header.Get("Range") == "" && wdAcceptsGzip(r) && f.serveGzip(rw, r, m.root, m.prefix, rel, file, st) {
				file.Close()
				return
			}
		}
		http.ServeContent(rw, r, rel, st.ModTime(), file)
		file.Close()
		return
	}
	wdSend(rw, http.StatusNotFound, "", "not found")
}

// wdAcceptsGzip reports whether the request's Accept-Encoding takes gzip
// (with a q-value above 0).
func wdAcceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
				continue
			}
			q := strings.TrimSpace(params)
			if qv, ok := strings.CutPrefix(q, "q="); ok {
				if x, err := strconv.ParseFloat(qv, 64); err == nil && x <= 0 {
					return false
				}
			}
			return true
		}
	}
	return false
}

// serveGzip answers with the gzip encoding of file (rel under root), or
// returns false to have the file served as it is.
func (f *webDoomFiles) serveGzip(rw http.ResponseWriter, r *http.Request, root *os.Root, prefix, rel string, file *os.File, st fs.FileInfo) bool {
	var body io.ReadSeeker
	var size int64
	if pre, err := root.Open(rel + ".gz"); err == nil {
		defer pre.Close()
		if pst, err := pre.Stat(); err == nil && pst.Mode().IsRegular() && !pst.ModTime().Before(st.ModTime()) {
			body, size = pre, pst.Size()
		}
	}
	if body == nil {
		if st.Size() > gzipFileMax {
			return false
		}
		b, err := f.gz.get(prefix+rel, file, st)
		if err != nil {
			f.log.Warn("webdoom: compressing", "file", rel, "err", err)
			return false
		}
		body, size = bytes.NewReader(b), int64(len(b))
	}
	h := rw.Header()
	h.Set("Content-Encoding", "gzip")
	h.Set("Content-Length", strconv.FormatInt(size, 10))
	h.Set("Last-Modified", st.ModTime().UTC().Format(http.TimeFormat))
	if t, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !st.ModTime().Truncate(time.Second).After(t) {
		h.Del("Content-Type")
		h.Del("Content-Length")
		h.Del("Content-Encoding")
		rw.WriteHeader(http.StatusNotModified)
		return true
	}
	rw.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		io.Copy(rw, body)
	}
	return true
}

// gzipCache keeps app files compressed once, by path, size and
// modification time, up to max bytes in all (then the oldest go).
type gzipCache struct {
	max int

	mu    sync.Mutex
	files map[string]gzipEntry
	order []string
	used  int
}

type gzipEntry struct {
	version string
	b       []byte
}

func newGzipCache(max int) *gzipCache {
	return &gzipCache{max: max, files: map[string]gzipEntry{}}
}

// get returns the gzip encoding of file, compressing it when the cache
// lacks this version.
func (c *gzipCache) get(rel string, file io.Reader, st fs.FileInfo) ([]byte, error) {
	version := fileKey(st, nil)
	c.mu.Lock()
	e, ok := c.files[rel]
	c.mu.Unlock()
	if ok && e.version == version {
		return e.b, nil
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	n, err := io.Copy(zw, file)
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return nil, err
	}
	if n != st.Size() {
		return nil, fmt.Errorf("%s changed while compressed (%d bytes read, %d expected)", rel, n, st.Size())
	}
	b := buf.Bytes()
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.files[rel]; ok {
		c.used -= len(old.b)
		delete(c.files, rel)
		for i, p := range c.order {
			if p == rel {
				c.order = append(c.order[:i], c.order[i+1:]...)
				break
			}
		}
	}
	for c.used+len(b) > c.max && len(c.order) > 0 {
		c.used -= len(c.files[c.order[0]].b)
		delete(c.files, c.order[0])
		c.order = c.order[1:]
	}
	if len(b) <= c.max {
		c.files[rel] = gzipEntry{version, b}
		c.order = append(c.order, rel)
		c.used += len(b)
	}
	return b, nil
}
