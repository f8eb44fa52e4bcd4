// coins: a rewind game module in C (contract v1, docs/modules.md).
//
// Up to 8 players steer discs around a 320×240 arena, bump into each
// other and collect coins: a coin touched scores 1 and reappears
// elsewhere. Fire (space) dashes, once a second. Integers only: positions
// are in 1/256 pixel.
//
// Built with clang --target=wasm32 -O2 -nostdlib (no libc): build.sh.
// games/coins is the same game in Go, rule for rule.

#define EXPORT(name) __attribute__((export_name(#name)))

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;

enum {
	MAXP = 8,          // players
	INSZ = 1,          // input bytes: the keys (bits as rewind_control's)
	FX = 256,          // fixed point: 1 pixel
	AW = 320 * FX,     // arena width
	AH = 240 * FX,     // arena height
	PR = 8 * FX,       // player radius
	CR = 4 * FX,       // coin radius
	NCOIN = 5,         // coins in the arena
	ACCEL = 48,        // speed gained per tick a key is held
	VMAX = 3 * FX,     // top speed (dashing: twice)
	DASH = 30,         // ticks between dashes
};

enum { K_LEFT = 1, K_RIGHT = 2, K_UP = 4, K_DOWN = 8, K_FIRE = 16 };

typedef struct {
	int x, y, vx, vy;
	int score, on, cool, pad;
} Player;

// The world: everything here and the stack pointer.
static struct {
	u32 rng;
	u32 tick;
	Player p[MAXP];
	int cx[NCOIN], cy[NCOIN];
} g;

static u8 inputs[MAXP * (1 + INSZ)];

static u32 rnd(void) {
	// xorshift32: the same on every machine.
	u32 x = g.rng;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return g.rng = x;
}

static void place_coin(int i) {
	g.cx[i] = (int)(rnd() % (u32)(AW - 4 * CR)) + 2 * CR;
	g.cy[i] = (int)(rnd() % (u32)(AH - 4 * CR)) + 2 * CR;
}

static int isqrt(int n) {
	if (n < 2) return n;
	int x = n, y = (x + 1) / 2;
	while (y < x) {
		x = y;
		y = (x + n / x) / 2;
	}
	return x;
}

EXPORT(rewind_abi) int rewind_abi(void) { return 1; }
EXPORT(rewind_players) int rewind_players(void) { return MAXP; }
EXPORT(rewind_input_size) int rewind_input_size(void) { return INSZ; }
EXPORT(rewind_inputs) u8 *rewind_inputs(void) { return inputs; }

EXPORT(rewind_init) void rewind_init(long long seed) {
	g.rng = (u32)((u64)seed ^ ((u64)seed >> 32));
	if (g.rng == 0) g.rng = 0x9E3779B9u;
	for (int i = 0; i < NCOIN; i++) place_coin(i);
}

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static void move(Player *p, int keys) {
	int ax = ((keys & K_RIGHT) != 0) - ((keys & K_LEFT) != 0);
	int ay = ((keys & K_DOWN) != 0) - ((keys & K_UP) != 0);
	int vmax = p->cool > DASH / 2 ? 2 * VMAX : VMAX;
	if (p->cool > 0) p->cool--;
	if ((keys & K_FIRE) && p->cool == 0 && (ax || ay)) {
		p->vx = ax * 2 * VMAX;
		p->vy = ay * 2 * VMAX;
		p->cool = DASH;
		vmax = 2 * VMAX;
	}
	p->vx = clamp(p->vx + ax * ACCEL - p->vx / 16, -vmax, vmax);
	p->vy = clamp(p->vy + ay * ACCEL - p->vy / 16, -vmax, vmax);
	p->x += p->vx;
	p->y += p->vy;
	if (p->x < PR) p->x = PR, p->vx = -p->vx / 2;
	if (p->x > AW - PR) p->x = AW - PR, p->vx = -p->vx / 2;
	if (p->y < PR) p->y = PR, p->vy = -p->vy / 2;
	if (p->y > AH - PR) p->y = AH - PR, p->vy = -p->vy / 2;
}

// bump pushes two overlapping players apart and swaps their speeds.
static void bump(Player *a, Player *b) {
	int dx = b->x - a->x, dy = b->y - a->y;
	int d2 = (dx / 16) * (dx / 16) + (dy / 16) * (dy / 16);
	if (d2 >= (2 * PR / 16) * (2 * PR / 16)) return;
	int d = isqrt(d2) * 16;
	if (d == 0) dx = FX, dy = 0, d = FX;
	int push = (2 * PR - d) / 2 + 1;
	a->x -= dx * push / d, a->y -= dy * push / d;
	b->x += dx * push / d, b->y += dy * push / d;
	int t = a->vx; a->vx = b->vx; b->vx = t;
	t = a->vy; a->vy = b->vy; b->vy = t;
}

EXPORT(rewind_step) void rewind_step(int tick) {
	g.tick = (u32)tick;
	for (int i = 0; i < MAXP; i++) {
		Player *p = &g.p[i];
		u8 status = inputs[i * (1 + INSZ)];
		if (status == 2) {
			*p = (Player){0};
			p->x = (40 + 80 * (i % 4)) * FX;
			p->y = (60 + 120 * (i / 4)) * FX;
			p->on = 1;
		} else if (status != 1) {
			p->on = 0;
		}
		if (p->on) move(p, inputs[i * (1 + INSZ) + 1]);
	}
	for (int i = 0; i < MAXP; i++)
		for (int j = i + 1; j < MAXP; j++)
			if (g.p[i].on && g.p[j].on) bump(&g.p[i], &g.p[j]);
	for (int c = 0; c < NCOIN; c++)
		for (int i = 0; i < MAXP; i++) {
			Player *p = &g.p[i];
			int dx = (p->x - g.cx[c]) / 16, dy = (p->y - g.cy[c]) / 16;
			int r = (PR + CR) / 16;
			if (p->on && dx * dx + dy * dy < r * r) {
				p->score++;
				place_coin(c);
				break;
			}
		}
}

// The view: called on a copy of the world only.

static u8 control[INSZ];

EXPORT(rewind_control) u8 *rewind_control(int me, int keys, int x, int y, int w, int h) {
	int k = keys & 31;
	if ((keys & 1024) && me >= 0 && me < MAXP && w > 0 && h > 0) {
		// Steer toward the pointer.
		int px = (int)((long long)g.p[me].x * w / AW), py = (int)((long long)g.p[me].y * h / AH);
		if (x < px - 4) k |= K_LEFT;
		if (x > px + 4) k |= K_RIGHT;
		if (y < py - 4) k |= K_UP;
		if (y > py + 4) k |= K_DOWN;
	}
	control[0] = (u8)k;
	return control;
}

typedef struct {
	u8 op, r, g, b;
	int a, b2, c, d;
} Cmd;

static struct {
	u32 n;
	Cmd c[64];
} list;
static char text[MAXP][16];

static void cmd(int op, u32 rgb, int a, int b, int c, int d) {
	if (list.n >= 64) return;
	list.c[list.n++] = (Cmd){op, rgb >> 16, rgb >> 8, rgb, a, b, c, d};
}

static const u32 colors[MAXP] = {0xe6194b, 0x3cb44b, 0x4363d8, 0xf58231,
                                 0x911eb4, 0x42d4f4, 0xf032e6, 0xbfef45};

static int fmt_score(char *s, int i, int score) {
	int n = 0;
	s[n++] = 'P';
	s[n++] = (char)('1' + i);
	s[n++] = ' ';
	char d[12];
	int k = 0;
	do d[k++] = (char)('0' + score % 10), score /= 10; while (score > 0 && k < 12);
	while (k > 0) s[n++] = d[--k];
	return n;
}

EXPORT(rewind_draw) void *rewind_draw(int me, int w, int h, int alpha) {
	list.n = 0;
	cmd(6, 0x101820, 0, 0, 0, 0);
	cmd(2, 0x405060, 0, 0, w, h);
	int s = (int)((long long)PR * w / AW);
	for (int c = 0; c < NCOIN; c++)
		cmd(3, 0xffd700, (int)((long long)g.cx[c] * w / AW), (int)((long long)g.cy[c] * h / AH),
		    (int)((long long)CR * w / AW), 0);
	int row = 0;
	for (int i = 0; i < MAXP; i++) {
		Player *p = &g.p[i];
		if (!p->on) continue;
		int x = (int)((long long)(p->x + p->vx * alpha / 1000) * w / AW);
		int y = (int)((long long)(p->y + p->vy * alpha / 1000) * h / AH);
		cmd(3, colors[i], x, y, s, 0);
		if (i == me) cmd(2, 0xffffff, x - s - 2, y - s - 2, 2 * s + 4, 2 * s + 4);
		row++;
		cmd(5, colors[i], 8, 16 * row, (int)(long)text[i], fmt_score(text[i], i, p->score));
	}
	return &list;
}
