// Differential vectors for G1 and G2 (tests/test_noble_curve.c). One case per line, for
// group g in {g1, g2}:
//   g_mul  k  compressed  uncompressed    [k]G as noble's toBytes(true) / toBytes(false)
//   g_mulp P  k  R                         R = [k]P, P a random subgroup point (zcash, uncompressed)
//   g_add  A  B  S                         S = A + B   \
//   g_dbl  A  D                            D = 2A       } raw affine points, see below
//   g_neg  A  N                            N = -A      /
//   g_decode  bytes  verdict               noble's fromBytes on these bytes: ok, or why not
//                                          (encoding, curve, subgroup)
// k is a 32-byte big-endian scalar below r. "Raw affine" is the zcash uncompressed layout
// without flag bits (x then y, big-endian, G2 coordinates c1 then c0; infinity all zero),
// so that points outside the subgroup, which zcash decoders reject, can be added too.
// Decoding verdicts come from noble; the generator also knows how it built each case and
// stops with an error if noble's accept/reject disagrees with that.
import { bls, Fp, P, R, parseArgs, makeRng, hexBE, hexOf, emit } from './common.mjs';

const { seed, count } = parseArgs();
const rng = makeRng(seed);
const Fp2 = bls.fields.Fp2;

// One description per group: its field, the coordinate encoding, random elements.
const groups = [
  {
    name: 'g1',
    Point: bls.G1.Point,
    F: Fp,
    b: 4n,
    feBytes: 48,
    enc: (v) => hexBE(v, 48),
    randomFe: () => rng.below(P),
    // zcash sign: y > (p-1)/2
    largest: (y) => y * 2n > P,
    mulCount: count,
  },
  {
    name: 'g2',
    Point: bls.G2.Point,
    F: Fp2,
    b: Fp2.fromBigTuple([4n, 4n]),
    feBytes: 96,
    enc: (v) => hexBE(v.c1, 48) + hexBE(v.c0, 48),
    randomFe: () => Fp2.fromBigTuple([rng.below(P), rng.below(P)]),
    largest: (y) => (y.c1 !== 0n ? y.c1 * 2n > P : y.c0 * 2n > P),
    // noble's G2 multiplication is ~7x slower than G1's; fewer keep the run short.
    mulCount: Math.max(1, count >> 2),
  },
];

const randomScalar = () => rng.below(R);

function raw(g, pt) {
  if (pt.is0()) return '00'.repeat(2 * g.feBytes);
  const { x, y } = pt.toAffine();
  return g.enc(x) + g.enc(y);
}

// The zcash encoding written out here (noble's toBytes refuses points outside the
// subgroup, which the decoding cases need).
function zcash(g, aff, compressed) {
  let hex = compressed ? g.enc(aff.x) : g.enc(aff.x) + g.enc(aff.y);
  const bytes = Buffer.from(hex, 'hex');
  if (compressed) {
    bytes[0] |= 0x80;
    if (g.largest(aff.y)) bytes[0] |= 0x20;
  }
  return bytes;
}

function infinityBytes(g, compressed) {
  const bytes = Buffer.alloc(compressed ? g.feBytes : 2 * g.feBytes);
  bytes[0] = compressed ? 0xc0 : 0x40;
  return bytes;
}

// A point of E(F) from a random x, almost surely outside the subgroup.
function randomCurvePoint(g) {
  for (;;) {
    const x = g.randomFe();
    let y;
    try {
      y = g.F.sqrt(g.F.add(g.F.mul(g.F.sqr(x), x), g.b));
    } catch {
      continue;
    }
    if (y === undefined || y === null) continue;
    if (rng.next64() & 1n) y = g.F.neg(y);
    return { x, y };
  }
}

function xWithoutRoot(g) {
  for (;;) {
    const x = g.randomFe();
    try {
      const y = g.F.sqrt(g.F.add(g.F.mul(g.F.sqr(x), x), g.b));
      if (y === undefined || y === null) return x;
    } catch {
      return x;
    }
  }
}

function nobleVerdict(g, bytes) {
  try {
    g.Point.fromBytes(bytes);
    return 'ok';
  } catch {
    return 'reject';
  }
}

function emitDecode(g, bytes, kind) {
  const verdict = nobleVerdict(g, bytes);
  if ((verdict === 'ok') !== (kind === 'ok'))
    throw new Error(`${g.name}: noble says ${verdict} for a case built as ${kind}: ${hexOf(bytes)}`);
  emit(`${g.name}_decode`, hexOf(bytes), kind);
}

// x + p in place on the 48-byte big-endian component at off; false if it does not fit
// below the flag bits.
function addP(bytes, off) {
  const v = BigInt('0x' + hexOf(bytes.subarray(off, off + 48))) + P;
  if (v >= 1n << 381n) return false;
  Buffer.from(hexBE(v, 48), 'hex').copy(bytes, off);
  return true;
}

for (const g of groups) {
  const G = g.Point.BASE;
  const name = g.name;

  // [k]G, with k = 0, 1, r - 1 among the edge values of rng.below.
  for (let i = 0; i < g.mulCount; i++) {
    const k = randomScalar();
    const Q = k === 0n ? g.Point.ZERO : G.multiply(k);
    emit(`${name}_mul`, hexBE(k, 32), hexOf(Q.toBytes(true)), hexOf(Q.toBytes(false)));
  }

  // A pool of subgroup points that evolves by additions, so that most cases cost one
  // noble addition instead of a multiplication.
  const pool = [];
  for (let i = 0; i < 8; i++) pool.push(G.multiply(1n + (randomScalar() % (R - 1n))));
  const pick = () => pool[rng.int(pool.length)];

  for (let i = 0; i < g.mulCount; i++) {
    const A = pick();
    const k = randomScalar();
    const Q = k === 0n ? g.Point.ZERO : A.multiply(k);
    emit(`${name}_mulp`, hexOf(A.toBytes(false)), hexBE(k, 32), raw(g, Q));
  }

  const off = [];
  for (let i = 0; i < 4; i++) {
    const a = randomCurvePoint(g);
    off.push(g.Point.fromAffine(a));
  }

  for (let i = 0; i < 4 * count; i++) {
    let A = rng.int(4) === 0 ? off[rng.int(off.length)] : pick();
    let B;
    switch (rng.int(10)) {
      case 0: B = A; break;                 // P + P
      case 1: B = A.negate(); break;        // P + (-P)
      case 2: B = g.Point.ZERO; break;
      case 3: B = A; A = g.Point.ZERO; break;
      case 4: B = off[rng.int(off.length)]; break;
      default: B = pick();
    }
    const S = A.add(B);
    emit(`${name}_add`, raw(g, A), raw(g, B), raw(g, S));
    if (!S.is0() && rng.int(2) === 0) {
      // keep the pool in the subgroup
      let inSub = true;
      try { S.assertValidity(); } catch { inSub = false; }
      if (inSub) pool[rng.int(pool.length)] = S;
    }
  }
  emit(`${name}_add`, raw(g, g.Point.ZERO), raw(g, g.Point.ZERO), raw(g, g.Point.ZERO));

  for (let i = 0; i < count; i++) {
    const A = rng.int(4) === 0 ? off[rng.int(off.length)] : pick();
    emit(`${name}_dbl`, raw(g, A), raw(g, A.double()));
    emit(`${name}_neg`, raw(g, A), raw(g, A.negate()));
  }
  emit(`${name}_dbl`, raw(g, g.Point.ZERO), raw(g, g.Point.ZERO));

  for (let i = 0; i < count; i++) {
    const compressed = rng.int(2) === 0;
    const kind = rng.int(8);
    if (kind <= 1) {
      const A = rng.int(16) === 0 ? g.Point.ZERO : pick();
      emitDecode(g, Buffer.from(A.toBytes(compressed)), 'ok');
    } else if (kind === 2) {
      // broken flags on a valid encoding
      const A = pick();
      const bytes = Buffer.from(A.toBytes(compressed));
      switch (rng.int(4)) {
        case 0: bytes[0] ^= 0x80; break;               // compression flag against the length
        case 1: bytes[0] |= 0x40; bytes[0] &= 0xdf; break; // infinity flag on a point
        case 2: if (compressed) bytes[0] ^= 0x80; else bytes[0] |= 0x20; break;
        default: {
          const inf = infinityBytes(g, compressed);
          if (rng.int(2)) inf[0] |= 0x20;
          else inf[1 + rng.int(inf.length - 1)] |= 1 << rng.int(8);
          emitDecode(g, inf, 'encoding');
          continue;
        }
      }
      emitDecode(g, bytes, 'encoding');
    } else if (kind === 3) {
      // a coordinate component plus p, when that fits below the flag bits
      const A = pick();
      const bytes = Buffer.from(A.toBytes(compressed));
      const flags = bytes[0] & 0xe0;
      bytes[0] &= 0x1f;
      const comps = bytes.length / 48;
      let done = false;
      for (let t = 0; t < 4 && !done; t++) done = addP(bytes, 48 * rng.int(comps));
      if (!done) {
        // every component is too large for +p: use x = p itself
        Buffer.from(hexBE(P, 48), 'hex').copy(bytes, 0);
      }
      bytes[0] |= flags;
      emitDecode(g, bytes, 'encoding');
    } else if (kind === 4) {
      emitDecode(g, zcash(g, { x: xWithoutRoot(g), y: g.F.ONE }, true), 'curve');
    } else if (kind === 5) {
      const a = pick().toAffine();
      emitDecode(g, zcash(g, { x: a.x, y: g.F.add(a.y, g.F.ONE) }, false), 'curve');
    } else {
      const a = off[rng.int(off.length)].toAffine();
      emitDecode(g, zcash(g, a, compressed), 'subgroup');
    }
  }
}
