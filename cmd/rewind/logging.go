package main

import (
	"bytes"
	"errors"
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
		return nil, usageError{Err: fmt.Errorf("--log-level %q: want debug, info, warn or error", l.level)}
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch strings.ToLower(l.format) {
	case "text":
		return slog.New(slog.NewTextHandler(emptyWaiting{w}, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usageError{Err: fmt.Errorf("--log-format %q: want text or json", l.format)}
}

// parseQuiet is parseFlags for the network commands: a bad flag gives one
// line (the error, and where to find the flags) rather than the error and
// the whole usage text; -h still prints the usage.
func parseQuiet(fs *flag.FlagSet, name string, args []string, stderr io.Writer) error {
	help := false
	for _, a := range args {
		if a == "--" {
			break
		}
		switch a {
		case "-h", "--h", "-help", "--help":
			help = true
		}
	}
	if !help {
		usage := fs.Usage
		fs.SetOutput(io.Discard)
		fs.Usage = func() {}
		defer func() { fs.SetOutput(stderr); fs.Usage = usage }()
	}
	err := parseFlags(fs, args)
	var u usageError
	if errors.As(err, &u) {
		return usageError{Err: fmt.Errorf("%w (rewind %s -h lists the flags)", u.Err, name)}
	}
	return err
}

// emptyWaiting writes the text handler's lines with an empty waiting_for
// as `waiting_for=` (the status lines' contract) rather than slog's
// quoted `waiting_for=""`. The handler writes each line in one Write.
type emptyWaiting struct{ w io.Writer }

func (e emptyWaiting) Write(p []byte) (int, error) {
	if q := bytes.ReplaceAll(p, []byte(` waiting_for=""`), []byte(` waiting_for=`)); len(q) != len(p) {
		if _, err := e.w.Write(q); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return e.w.Write(p)
}
