// Shared by the vector generators: argument parsing, a seeded generator, hex output.
//
// Every generator prints one test case per line: `op hex hex ...` (inputs first, then
// the expected outputs computed by @noble/curves). Field elements are canonical
// big-endian hex; points use the zcash encoding unless a generator says otherwise.
// The C side (tests/harness.c: test_noble_open) starts the generator with the test's
// seed, so a failing run is replayed by its printed seed.
import { bls12_381 } from '@noble/curves/bls12-381.js';

export const bls = bls12_381;
export const Fp = bls.fields.Fp;
export const Fr = bls.fields.Fr;
export const P = Fp.ORDER;
export const R = Fr.ORDER;

export function parseArgs(argv = process.argv.slice(2)) {
  const args = { seed: 1n, count: 100 };
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--seed') args.seed = BigInt(argv[i + 1]);
    else if (argv[i] === '--count') args.count = Number(argv[i + 1]);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return args;
}

// splitmix64 over BigInt: deterministic from the seed, independent of the C generator.
export function makeRng(seed) {
  const M = (1n << 64n) - 1n;
  let s = seed & M;
  const next64 = () => {
    s = (s + 0x9e3779b97f4a7c15n) & M;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
    return z ^ (z >> 31n);
  };
  const bits = (n) => {
    let v = 0n;
    for (let i = 0; i < n; i += 64) v = (v << 64n) | next64();
    return v & ((1n << BigInt(n)) - 1n);
  };
  // Uniform-ish below m, with edge values (0, 1, m-1) one time in sixteen.
  const below = (m) => {
    const pick = next64() % 16n;
    if (pick === 0n) return 0n;
    if (pick === 1n) return 1n;
    if (pick === 2n) return m - 1n;
    return bits(m.toString(2).length + 64) % m;
  };
  return { next64, bits, below, int: (n) => Number(next64() % BigInt(n)) };
}

export function hexBE(v, bytes) {
  return v.toString(16).padStart(2 * bytes, '0');
}

export const hexOf = (u8) => Buffer.from(u8).toString('hex');

export function emit(...fields) {
  process.stdout.write(fields.join(' ') + '\n');
}
