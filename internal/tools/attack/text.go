package attack

import (
	"context"
	"strings"
	"time"

	"github.com/rewindnet/rewind"
)

// HostileText: issue 30's item 12. A player of a match names itself and
// chats with what makes text lie on screen: bidi overrides and isolates,
// zero-width characters, 99 combining marks on one letter, the name
// "server" in any case, a name of zero-width characters only. Before,
// the server relayed all of it to every player. It holds if the other
// player received none of it (only the plain lines, `<script>` among
// them: views draw text, never HTML) and the sender got a refusal for
// each.
func HostileText(ctx context.Context, cfg Config) Result {
	r := Result{Name: "hostile_text"}
	t, err := startUDPTarget(ctx, rewind.HostOptions{})
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	a, b := t.pair[0], t.pair[1]
	from, _ := a.Player()
	names := []string{"server", " SERVER ", "\u200B\u200C", "evil\u202Eexe.txt", "\u2066admin\u2069"}
	lines := []string{"abc\u202Egpj.exe", "\u2066x\u2069", "a\u200Bb", "a" + strings.Repeat("\u0301", 99), "\uFEFFhi"}
	plain := []string{"<script>alert(1)</script>", "end of the attack"}
	for _, n := range names {
		if err := a.SetName(n); err != nil {
			r.Err = err
			return r
		}
	}
	for _, l := range append(lines, plain...) {
		if err := a.Say(l); err != nil {
			r.Err = err
			return r
		}
	}
	hostile := len(names) + len(lines)
	var relayed, refused, plainHeard int
	ended := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && ctx.Err() == nil; {
		for _, m := range b.Chat() {
			if m.From != from {
				continue
			}
			switch {
			case m.Kind == rewind.ChatText && (m.Text == plain[0] || m.Text == plain[1]):
				plainHeard++
				ended = ended || m.Text == plain[1]
			case m.Kind == rewind.ChatText || m.Kind == rewind.ChatName:
				relayed++
			}
		}
		for _, m := range a.Chat() {
			if m.Kind == rewind.ChatRefused {
				refused++
			}
		}
		if ended && refused >= hostile {
			break
		}
		sleepCtx(ctx, 10*time.Millisecond)
	}
	r.add("hostile_names", len(names))
	r.add("hostile_lines", len(lines))
	r.add("relayed_to_other_player", relayed)
	r.add("refused_to_sender", refused)
	r.add("plain_lines_relayed", plainHeard)
	r.Held = ended && relayed == 0 && refused == hostile && plainHeard == len(plain)
	return r
}
