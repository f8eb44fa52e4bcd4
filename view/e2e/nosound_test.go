package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// TestWindowNoSoundLinksNoALSA: the window built with -tags nosound
// (view/README: a machine without libasound2-dev) links no audio
// library, so it needs no ALSA headers; without the tag it does (the
// check can fail).
func TestWindowNoSoundLinksNoALSA(t *testing.T) {
	goBin := need(t, "listing the window's packages", "go")
	audio := func(tags ...string) []string {
		t.Helper()
		args := append([]string{"list", "-deps"}, tags...)
		out, err := exec.Command(goBin, append(args, "../window")...).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %v: %v\n%s", tags, err, out)
		}
		var hits []string
		for _, p := range strings.Fields(string(out)) {
			if strings.HasPrefix(p, "github.com/ebitengine/oto/") || strings.HasPrefix(p, "github.com/hajimehoshi/ebiten/v2/audio") {
				hits = append(hits, p)
			}
		}
		return hits
	}
	if got := audio(); len(got) == 0 {
		t.Error("the window with sound links no audio library: this check cannot tell")
	}
	if got := audio("-tags", "nosound"); len(got) != 0 {
		t.Errorf("the window built with -tags nosound links %v (needs the ALSA headers)", got)
	}
}
