package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// logFlags are the logging flags of the long-running commands.
type logFlags struct {
	format string
	level  string
}

// add declares --log-format and --log-level on fs.
func (l *logFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&l.format, "log-format", "text", "log format on standard error: text or json")
	fs.StringVar(&l.level, "log-level", "info", "least important log level shown: debug, info, warn or error")
}

// logger returns a structured logger writing to w as the flags say, or a
// usageError for a bad flag value.
func (l *logFlags) logger(w io.Writer) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(l.level)); err != nil {
		return nil, usageError{fmt.Errorf("--log-level %q: want debug, info, warn or error", l.level)}
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch strings.ToLower(l.format) {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usageError{fmt.Errorf("--log-format %q: want text or json", l.format)}
}
