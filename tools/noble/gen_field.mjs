// Differential vectors for Fp and Fr: each line `op a b expected` (b omitted for unary
// ops), canonical big-endian hex computed with @noble/curves' field implementations.
import { Fp, Fr, P, R, parseArgs, makeRng, hexBE, emit } from './common.mjs';

const { seed, count } = parseArgs();
const rng = makeRng(seed);

for (const [name, F, m, bytes] of [['fp', Fp, P, 48], ['fr', Fr, R, 32]]) {
  const h = (v) => hexBE(v, bytes);
  for (let i = 0; i < count; i++) {
    const a = rng.below(m), b = rng.below(m);
    emit(`${name}_add`, h(a), h(b), h(F.add(a, b)));
    emit(`${name}_sub`, h(a), h(b), h(F.sub(a, b)));
    emit(`${name}_mul`, h(a), h(b), h(F.mul(a, b)));
    emit(`${name}_sqr`, h(a), h(F.sqr(a)));
    emit(`${name}_neg`, h(a), h(F.neg(a)));
    emit(`${name}_inv`, h(a), h(a === 0n ? 0n : F.inv(a)));
    // A random exponent below the modulus, given as a field-sized integer.
    const e = rng.below(m);
    emit(`${name}_pow`, h(a), h(e), h(F.pow(a, e)));
  }
  // Square roots: which root is returned is not specified, so the C side checks that its
  // root squares to a and is one of the two roots given here (or that none exists).
  if (name === 'fp') {
    for (let i = 0; i < count; i++) {
      const a = rng.below(m);
      let root = null;
      try { root = F.sqrt(a); } catch { root = null; }
      emit('fp_sqrt', h(a), root === null ? 'none' : h(root));
    }
  }
}

// Roots of unity with the snarkjs convention: w_(2^32) = 5^((r-1)/2^32).
const w32 = Fr.pow(5n, (R - 1n) >> 32n);
for (let k = 0; k <= 32; k++) {
  emit('fr_root', String(k), hexBE(Fr.pow(w32, 1n << BigInt(32 - k)), 32));
}
