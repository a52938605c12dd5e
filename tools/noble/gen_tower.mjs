// Differential vectors for Fp6 and Fp12: each line `op inputs... expected`, every element
// as the hex of noble's toBytes (Fp6: 288 bytes, Fp12: 576 bytes; the Fp coordinates
// big-endian, lowest tower slot first), so the C side also checks its byte layout.
//   fp6_mul a b r   fp6_sqr a r   fp6_inv a r   fp6_frob k a r
//   fp12_mul a b r  fp12_sqr a r  fp12_inv a r  fp12_frob k a r  fp12_conj a r
//   fp12_mul014 a l0 l1 l4 r     (l0, l1, l4: Fp2 as 96 bytes c0 || c1)
//   fp12_cyclo a r               (a in the cyclotomic subgroup; r = a^2)
//   fp12_pow a e r               (e: 32-byte big-endian exponent)
import { bls, Fp, P, parseArgs, makeRng, hexBE, hexOf, emit } from './common.mjs';

const { Fp2, Fp6, Fp12 } = bls.fields;
const { seed, count } = parseArgs();
const rng = makeRng(seed);

const randFp2 = () => Fp2.fromBigTuple([rng.below(P), rng.below(P)]);
const randFp6 = () => Fp6.fromBigSix(Array.from({ length: 6 }, () => rng.below(P)));
const randFp12 = () => Fp12.fromBigTwelve(Array.from({ length: 12 }, () => rng.below(P)));
const h2 = (a) => hexOf(Fp2.toBytes(a));
const h6 = (a) => hexOf(Fp6.toBytes(a));
const h12 = (a) => hexOf(Fp12.toBytes(a));

// An element of the cyclotomic subgroup: the easy part of the final exponentiation.
const cyclotomic = (a) => {
  const t = Fp12.mul(Fp12.conjugate(a), Fp12.inv(a));
  return Fp12.mul(Fp12.frobeniusMap(t, 2), t);
};

for (let i = 0; i < count; i++) {
  const a = randFp6(), b = randFp6();
  emit('fp6_mul', h6(a), h6(b), h6(Fp6.mul(a, b)));
  emit('fp6_sqr', h6(a), h6(Fp6.sqr(a)));
  if (!Fp6.is0(a)) emit('fp6_inv', h6(a), h6(Fp6.inv(a)));
  const k = 1 + rng.int(5);
  emit('fp6_frob', String(k), h6(a), h6(Fp6.frobeniusMap(a, k)));

  const x = randFp12(), y = randFp12();
  emit('fp12_mul', h12(x), h12(y), h12(Fp12.mul(x, y)));
  emit('fp12_sqr', h12(x), h12(Fp12.sqr(x)));
  if (!Fp12.is0(x)) emit('fp12_inv', h12(x), h12(Fp12.inv(x)));
  const j = 1 + rng.int(11);
  emit('fp12_frob', String(j), h12(x), h12(Fp12.frobeniusMap(x, j)));
  emit('fp12_conj', h12(x), h12(Fp12.conjugate(x)));

  const l0 = randFp2(), l1 = randFp2(), l4 = randFp2();
  const line = { c0: { c0: l0, c1: l1, c2: Fp2.ZERO }, c1: { c0: Fp2.ZERO, c1: l4, c2: Fp2.ZERO } };
  emit('fp12_mul014', h12(x), h2(l0), h2(l1), h2(l4), h12(Fp12.mul(x, line)));

  if (!Fp12.is0(x)) {
    const g = cyclotomic(x);
    emit('fp12_cyclo', h12(g), h12(Fp12.sqr(g)));
  }
  const e = rng.bits(256);
  emit('fp12_pow', h12(x), hexBE(e, 32), h12(Fp12.pow(x, e)));
}
