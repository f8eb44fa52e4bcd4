// Package e2e holds the end-to-end tests of the browser page and the
// desktop window: real Chromium (driven with chromedp) and the window under
// Xvfb, playing against `rewind demo` and `rewind play` bots. It has no
// code of its own outside its tests.
package e2e
