// NTT vectors from ffjavascript 0.3.1, the field library under snarkjs: g16's transforms
// and its snarkjs H computation must match it byte for byte.
//
//   node gen_ntt.mjs --seed S --count N
//
// Prints one case per line. Vectors are hex strings of n concatenated field elements, each
// 32 bytes little-endian in Montgomery form (x * 2^256 mod r): ffjavascript's buffer
// layout, which is also the .zkey/.wtns layout.
//   root K W                 Fr.w[K], the primitive 2^K-th root (generator 5), K = 0..32
//   fft  L IN OUT            OUT = Fr.fft(IN), n = 2^L
//   ifft L IN OUT            OUT = Fr.ifft(IN)
//   h    L A B C H           H as snarkjs groth16 prove computes it: for each of A, B, C
//                            ifft, batchApplyKey(first 1, inc Fr.w[L+1]), fft; then
//                            H = A*B - C elementwise
// N is the number of random vectors per size and kind (sizes 2^1..2^12 for the
// transforms, 2^1..2^10 for h).
import { buildBls12381 } from 'ffjavascript';

function parseArgs(argv = process.argv.slice(2)) {
  const args = { seed: 1n, count: 2 };
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--seed') args.seed = BigInt(argv[i + 1]);
    else if (argv[i] === '--count') args.count = Number(argv[i + 1]);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return args;
}

// splitmix64 over BigInt: deterministic from the seed, independent of the C generator.
function makeRng(seed) {
  const M = (1n << 64n) - 1n;
  let s = seed & M;
  return () => {
    s = (s + 0x9e3779b97f4a7c15n) & M;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
    return z ^ (z >> 31n);
  };
}

const { seed, count } = parseArgs();
const next64 = makeRng(seed);
const curve = await buildBls12381(true); // single thread: no workers, deterministic
const Fr = curve.Fr;
const R = Fr.p;
const hex = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString('hex');
const emit = (...fields) => process.stdout.write(fields.join(' ') + '\n');

// Uniform below r from 320 random bits, with 0, 1 and r-1 one time in sixteen each.
function randomElement() {
  const pick = next64() % 16n;
  if (pick === 0n) return 0n;
  if (pick === 1n) return 1n;
  if (pick === 2n) return R - 1n;
  let v = 0n;
  for (let i = 0; i < 5; i++) v = (v << 64n) | next64();
  return v % R;
}

function randomVector(n) {
  const buf = new Uint8Array(n * Fr.n8);
  for (let i = 0; i < n; i++) buf.set(Fr.e(randomElement()), i * Fr.n8);
  return buf;
}

for (let k = 0; k <= Fr.s; k++) emit('root', k, hex(Fr.w[k]));

for (let L = 1; L <= 12; L++) {
  const n = 1 << L;
  for (let c = 0; c < count; c++) {
    const x = randomVector(n);
    emit('fft', L, hex(x), hex(await Fr.fft(x)));
    const y = randomVector(n);
    emit('ifft', L, hex(y), hex(await Fr.ifft(y)));
  }
}

// The snarkjs prover's steps (groth16_prove.js): odd points of the 2n-domain, then joinABC.
async function oddPoints(buff, L) {
  const coefs = await Fr.ifft(buff);
  const shifted = await Fr.batchApplyKey(coefs, Fr.e(1), Fr.w[L + 1]);
  return Fr.fft(shifted);
}

for (let L = 1; L <= 10; L++) {
  const n = 1 << L;
  for (let c = 0; c < count; c++) {
    const a = randomVector(n), b = randomVector(n), cc = randomVector(n);
    const [ao, bo, co] = [await oddPoints(a, L), await oddPoints(b, L), await oddPoints(cc, L)];
    const h = new Uint8Array(n * Fr.n8);
    for (let i = 0; i < n; i++) {
      const at = (buf) => buf.slice(i * Fr.n8, (i + 1) * Fr.n8);
      h.set(Fr.sub(Fr.mul(at(ao), at(bo)), at(co)), i * Fr.n8);
    }
    emit('h', L, hex(a), hex(b), hex(cc), hex(h));
  }
}

await curve.terminate();
