// Differential vectors for the pairing. Points are zcash uncompressed encodings (noble
// `toBytes(false)`: G1 = x || y, 96 bytes; G2 = x.c1 || x.c0 || y.c1 || y.c0, 192 bytes;
// big-endian, flags in the top 3 bits of byte 0), GT elements are Fp12.toBytes (576 bytes).
//   pairing P Q e          e = noble's bls.pairing(P, Q)
//   plainpow P Q e         e = (Miller loop)^(3(p^12 - 1)/r) by plain exponentiation, no
//                          hard-part formula: the pairing by definition
//   bilinear P Q aP bQ ab  ab = a*b mod r, 32 bytes big-endian
//   product aP Q negP aQ   e(aP, Q) e(-P, aQ) = 1
//   multi n P1 Q1 ... Pn Qn e   e = noble's pairingBatch over the n pairs
// Like blst, zkcrypto and snarkjs, noble's final exponentiation raises to 3(p^12 - 1)/r
// (its hard part computes 3(p^4 - p^2 + 1)/r), and so does g16: see src/curve/pairing.h.
import { bls, P, R, parseArgs, makeRng, hexBE, hexOf, emit } from './common.mjs';

const { Fp12 } = bls.fields;
const G1 = bls.G1.Point.BASE, G2 = bls.G2.Point.BASE;
const { seed, count } = parseArgs();
const rng = makeRng(seed);

const scalar = () => 1n + rng.below(R - 1n);
const g1 = (pt) => hexOf(pt.toBytes(false));
const g2 = (pt) => hexOf(pt.toBytes(false));
const gt = (e) => hexOf(Fp12.toBytes(e));

// Plain exponentiation by a 4,300-bit exponent in BigInt: ~0.2 s each, so only a few.
const FULL = (P ** 12n - 1n) / R;
const exactCount = Math.min(count, 2);

for (let i = 0; i < count; i++) {
  const a = i === 0 ? 1n : scalar(), b = i === 0 ? 1n : scalar();
  const Pa = G1.multiply(a), Qb = G2.multiply(b);
  emit('pairing', g1(Pa), g2(Qb), gt(bls.pairing(Pa, Qb)));
  if (i < exactCount)
    emit('plainpow', g1(Pa), g2(Qb), gt(Fp12.pow(bls.pairing(Pa, Qb, false), 3n * FULL)));
}

for (let i = 0; i < Math.max(1, count >> 2); i++) {
  const Pt = G1.multiply(scalar()), Qt = G2.multiply(scalar());
  const a = scalar(), b = scalar();
  emit('bilinear', g1(Pt), g2(Qt), g1(Pt.multiply(a)), g2(Qt.multiply(b)),
    hexBE((a * b) % R, 32));
  emit('product', g1(Pt.multiply(a)), g2(Qt), g1(Pt.negate()), g2(Qt.multiply(a)));
}

for (let i = 0; i < Math.max(1, count >> 2); i++) {
  const n = 2 + rng.int(4);
  const pairs = [];
  for (let j = 0; j < n; j++)
    pairs.push({ g1: G1.multiply(scalar()), g2: G2.multiply(scalar()) });
  emit('multi', String(n), ...pairs.flatMap(({ g1: p, g2: q }) => [g1(p), g2(q)]),
    gt(bls.pairingBatch(pairs)));
}
