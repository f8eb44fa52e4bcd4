// XXH3-64 (seed 0, the default secret): the reference xxHash XXH3_64bits,
// in plain JavaScript with BigInt. It is what rewind's world hash is made
// of (docs/world.md, "The hash, exactly").
'use strict';

const M = (1n << 64n) - 1n;
const P32_1 = 0x9E3779B1n, P32_2 = 0x85EBCA77n, P32_3 = 0xC2B2AE3Dn;
const P64_1 = 0x9E3779B185EBCA87n, P64_2 = 0xC2B2AE3D27D4EB4Fn, P64_3 = 0x165667B19E3779F9n;
const P64_4 = 0x85EBCA77C2B2AE63n, P64_5 = 0x27D4EB2F165667C5n;

const SECRET = Uint8Array.from([
  0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
  0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
  0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
  0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
  0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
  0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
  0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
  0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
  0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
  0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
  0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
  0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
]);

function r64(b, o) {
  let v = 0n;
  for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(b[o + i]);
  return v;
}
function r32(b, o) {
  return BigInt((b[o] | (b[o + 1] << 8) | (b[o + 2] << 16)) >>> 0) + (BigInt(b[o + 3]) << 24n);
}
const mul = (a, b) => (a * b) & M;
function fold(a, b) {
  const p = a * b;
  return (p & M) ^ (p >> 64n);
}
function avalanche(h) {
  h ^= h >> 37n;
  h = mul(h, 0x165667919E3779F9n);
  return h ^ (h >> 32n);
}
function avalancheSmall(h) {
  h ^= h >> 33n;
  h = mul(h, P64_2);
  h ^= h >> 29n;
  h = mul(h, P64_3);
  return h ^ (h >> 32n);
}
const rotl = (h, r) => ((h << BigInt(r)) | (h >> BigInt(64 - r))) & M;
function rrmxmx(h, len) {
  h ^= rotl(h, 49) ^ rotl(h, 24);
  h = mul(h, 0x9FB21C651E98DF25n);
  h ^= ((h >> 35n) + BigInt(len)) & M;
  h = mul(h, 0x9FB21C651E98DF25n);
  return h ^ (h >> 28n);
}
function bswap(v) {
  let r = 0n;
  for (let i = 0; i < 8; i++) {
    r = (r << 8n) | (v & 0xffn);
    v >>= 8n;
  }
  return r;
}
const mix16 = (b, o, s) => fold(r64(b, o) ^ r64(SECRET, s), r64(b, o + 8) ^ r64(SECRET, s + 8));

function accumulate512(acc, b, o, s) {
  for (let i = 0; i < 8; i++) {
    const v = r64(b, o + 8 * i);
    const k = v ^ r64(SECRET, s + 8 * i);
    acc[i ^ 1] = (acc[i ^ 1] + v) & M;
    acc[i] = (acc[i] + (k & 0xffffffffn) * (k >> 32n)) & M;
  }
}
function scramble(acc, s) {
  for (let i = 0; i < 8; i++) {
    let a = acc[i];
    a ^= a >> 47n;
    a ^= r64(SECRET, s + 8 * i);
    acc[i] = mul(a, P32_1);
  }
}
function hashLong(b) {
  const len = b.length;
  const acc = [P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1];
  const stripesPerBlock = (192 - 64) / 8, blockLen = 64 * stripesPerBlock;
  const blocks = Math.floor((len - 1) / blockLen);
  for (let n = 0; n < blocks; n++) {
    for (let s = 0; s < stripesPerBlock; s++) accumulate512(acc, b, n * blockLen + s * 64, s * 8);
    scramble(acc, 192 - 64);
  }
  const stripes = Math.floor((len - 1 - blockLen * blocks) / 64);
  for (let s = 0; s < stripes; s++) accumulate512(acc, b, blocks * blockLen + s * 64, s * 8);
  accumulate512(acc, b, len - 64, 192 - 64 - 7);
  let h = mul(BigInt(len), P64_1);
  for (let i = 0; i < 4; i++) h = (h + fold(acc[2 * i] ^ r64(SECRET, 11 + 16 * i), acc[2 * i + 1] ^ r64(SECRET, 19 + 16 * i))) & M;
  return avalanche(h);
}

// xxh3 returns XXH3-64 of the bytes b (a Uint8Array) as a BigInt.
function xxh3(b) {
  const len = b.length;
  if (len === 0) return 0x2d06800538d394c2n;
  if (len <= 3) {
    const c = (b[0] << 16) | (b[len >> 1] << 24) | b[len - 1] | (len << 8);
    return avalancheSmall(BigInt(c >>> 0) ^ (r32(SECRET, 0) ^ r32(SECRET, 4)));
  }
  if (len <= 8) {
    const in64 = r32(b, len - 4) + (r32(b, 0) << 32n);
    return rrmxmx(in64 ^ (r64(SECRET, 8) ^ r64(SECRET, 16)), len);
  }
  if (len <= 16) {
    const lo = r64(b, 0) ^ (r64(SECRET, 24) ^ r64(SECRET, 32));
    const hi = r64(b, len - 8) ^ (r64(SECRET, 40) ^ r64(SECRET, 48));
    return avalanche((BigInt(len) + bswap(lo) + hi + fold(lo, hi)) & M);
  }
  let acc = mul(BigInt(len), P64_1);
  if (len <= 128) {
    if (len > 32) {
      if (len > 64) {
        if (len > 96) acc += mix16(b, 48, 96) + mix16(b, len - 64, 112);
        acc += mix16(b, 32, 64) + mix16(b, len - 48, 80);
      }
      acc += mix16(b, 16, 32) + mix16(b, len - 32, 48);
    }
    acc += mix16(b, 0, 0) + mix16(b, len - 16, 16);
    return avalanche(acc & M);
  }
  if (len <= 240) {
    for (let i = 0; i < 8; i++) acc += mix16(b, 16 * i, 16 * i);
    acc = avalanche(acc & M);
    const rounds = len >> 4;
    for (let i = 8; i < rounds; i++) acc += mix16(b, 16 * i, 16 * (i - 8) + 3);
    acc += mix16(b, len - 16, 119);
    return avalanche(acc & M);
  }
  return hashLong(b);
}

module.exports = { xxh3 };
