#!/usr/bin/env bash
# Regenerates the snarkjs/circom BLS12-381 Groth16 fixtures in tests/fixtures/<name>/.
#
# Everything comes from the npm registry (versions pinned in package-lock.json):
# snarkjs 0.7.6, circom2 0.2.23 (circom 2.2.3 compiled to WASM), circomlib 2.0.5.
#
# Reproducibility: snarkjs `contribute -e=...` mixes OS randomness into the entropy,
# so it is NOT deterministic. This script therefore makes both the phase-1
# contribution and the phase-2 (zkey) contribution with `beacon` (fixed beacon hash,
# 2^10 iterations), which is deterministic. Everything it writes is then byte-for-byte
# reproducible except proof.json, which snarkjs blinds with fresh randomness. An
# existing proof.json is kept as long as it still verifies, so a re-run leaves the
# committed tree unchanged.
#
# Environment:
#   FIXTURES_DIR   output directory          (default: <repo>/tests/fixtures)
#   FIXTURES_WORK  scratch directory         (default: <repo>/build-fixtures, git-ignored)
#   CIRCUITS       which fixtures to build   (default: "multiplier poseidon mimc sha256")
#   SKIP_NPM=1     do not run `npm ci` (node_modules must already be installed)
#   NEW_PROOF=1    always make a fresh proof.json
#   ZKEY_VERIFY=0  skip `snarkjs zkey verify` (a slow full check of each zkey)
#   GZIP_OVER=N    store generated r1cs/zkey files larger than N bytes gzipped (default: never)
#   PTAU_POWER=k   size of the powers of tau (default 15; must cover the largest circuit)
#
# The only large intermediate is the prepared powers of tau (2^15, 56.6 MB; the slow
# part: `prepare phase2` took 32 min on a busy 2-core machine). It is cached in
# $FIXTURES_WORK and reused when its SHA-256 matches
# tests/fixtures/ptau/pot15_final.ptau.sha256. With it cached a full run takes ~4 min.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${FIXTURES_DIR:-$ROOT/tests/fixtures}
WORK=${FIXTURES_WORK:-$ROOT/build-fixtures}
CIRCUITS=${CIRCUITS:-"multiplier poseidon mimc sha256"}
PTAU_POWER=${PTAU_POWER:-15}   # sha256: 31761 constraints + 2 public -> domain 2^15
# Fixed beacons: sha256("g16 fixtures ptau") and sha256("g16 fixtures zkey").
PTAU_BEACON=$(printf 'g16 fixtures ptau' | sha256sum | cut -d' ' -f1)
ZKEY_BEACON=$(printf 'g16 fixtures zkey' | sha256sum | cut -d' ' -f1)
BEACON_ITER_EXP=10

mkdir -p "$OUT" "$WORK"
SNARKJS=(node "$HERE/node_modules/snarkjs/cli.js")
CIRCOM=("$HERE/node_modules/.bin/circom2")

T_START=$(date +%s.%N)
TIMINGS=()
run() {  # run <label> <cmd...>: runs cmd, logs output to $WORK/log, records time
    local label=$1; shift
    local t0 t1
    t0=$(date +%s.%N)
    printf '==> %-42s ' "$label"
    if ! "$@" >>"$WORK/log" 2>&1; then
        echo "FAILED"; echo "---- last lines of $WORK/log:"; tail -40 "$WORK/log"; exit 1
    fi
    t1=$(date +%s.%N)
    local dt; dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    printf '%8.1f s\n' "$dt"
    TIMINGS+=("$(printf '%-44s %8.1f s' "$label" "$dt")")
}
: >"$WORK/log"
echo "g16 fixtures: out=$OUT work=$WORK (log: $WORK/log)"

# ---------------------------------------------------------------- npm packages
if [ "${SKIP_NPM:-0}" != 1 ]; then
    run "npm ci (tools/snarkjs)" bash -c "cd '$HERE' && npm ci --no-audit --no-fund"
fi
echo "    snarkjs $(node -p "require('$HERE/node_modules/snarkjs/package.json').version")," \
     "$("${CIRCOM[@]}" --version | tr '\n' ' ')," \
     "circomlib $(node -p "require('$HERE/node_modules/circomlib/package.json').version")," \
     "node $(node --version)"

# ---------------------------------------------------------------- powers of tau
PTAU=$WORK/pot${PTAU_POWER}_final.ptau
PTAU_SUM_FILE=$OUT/ptau/pot${PTAU_POWER}_final.ptau.sha256
mkdir -p "$OUT/ptau"
ptau_ok() {
    [ -f "$PTAU" ] && [ -f "$PTAU_SUM_FILE" ] &&
        [ "$(sha256sum "$PTAU" | cut -d' ' -f1)" = "$(cut -d' ' -f1 "$PTAU_SUM_FILE")" ]
}
if ptau_ok; then
    echo "==> reusing $PTAU (sha256 matches $PTAU_SUM_FILE)"
else
    run "ptau new bls12381 $PTAU_POWER" "${SNARKJS[@]}" powersoftau new bls12381 $PTAU_POWER "$WORK/pot_0.ptau"
    run "ptau beacon (2^$BEACON_ITER_EXP)" "${SNARKJS[@]}" powersoftau beacon "$WORK/pot_0.ptau" "$WORK/pot_1.ptau" \
        "$PTAU_BEACON" $BEACON_ITER_EXP -n="g16 fixtures ptau beacon"
    run "ptau prepare phase2" "${SNARKJS[@]}" powersoftau prepare phase2 "$WORK/pot_1.ptau" "$PTAU.tmp"
    mv "$PTAU.tmp" "$PTAU"
    rm -f "$WORK/pot_0.ptau" "$WORK/pot_1.ptau"
    sum=$(sha256sum "$PTAU" | cut -d' ' -f1)
    if [ -f "$PTAU_SUM_FILE" ] && [ "$sum" != "$(cut -d' ' -f1 "$PTAU_SUM_FILE")" ]; then
        echo "WARNING: regenerated ptau differs from $PTAU_SUM_FILE (not reproducible?)" >&2
    fi
    echo "$sum  pot${PTAU_POWER}_final.ptau" >"$PTAU_SUM_FILE"
fi

verify_ok() {  # snarkjs exits 0 even on some failures; require its "OK!" line
    local log
    log=$("${SNARKJS[@]}" groth16 verify "$1/verification_key.json" "$1/public.json" "$1/proof.json" 2>&1) || { echo "$log"; return 1; }
    echo "$log"
    grep -q "OK!" <<<"$log"
}

# ---------------------------------------------------------------- inputs
write_input() {
    case $1 in
    multiplier) echo '{"x": "3", "y": "123456789012345678901234567890123456789012345678901234567890"}' ;;
    poseidon)   echo '{"a": "1", "b": "2"}' ;;
    mimc)       echo '{"ins": ["1234567890", "987654321"], "k": "42"}' ;;
    sha256)     node -e '
        const m = Buffer.from("g16 test vector: SHA-256 of one 55-byte block on BLS12!");
        if (m.length !== 55) throw new Error("message must be 55 bytes");
        console.log(JSON.stringify({msg: [...m].map(String)}));' ;;
    *) echo "unknown circuit $1" >&2; exit 1 ;;
    esac
}

# Independent recomputation of public.json (checks circom's BLS12-381 arithmetic).
check_public() {
    node --input-type=module - "$1" "$2" "$3" "$HERE" <<'EOF'
import fs from "fs";
import crypto from "crypto";
const [name, inputFile, publicFile, here] = process.argv.slice(2);
const r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const md = (a) => ((a % r) + r) % r;
const inp = JSON.parse(fs.readFileSync(inputFile, "utf8"));
const pub = JSON.parse(fs.readFileSync(publicFile, "utf8"));
let expected = null;
if (name === "multiplier") {
    const x = BigInt(inp.x), y = BigInt(inp.y);
    let t = md(x * y);
    for (let i = 1; i < 8; i++) t = (i % 2) ? md(t * y) : md(t * t + x);
    expected = [t, x];                     // outputs first, then public inputs
} else if (name === "mimc") {
    const src = fs.readFileSync(here + "/node_modules/circomlib/circuits/mimcsponge.circom", "utf8");
    const body = src.slice(src.indexOf("c_partial[218] = ["));
    const cp = body.slice(body.indexOf("[", 15) + 1, body.indexOf("]", 20)).split(",").map(s => BigInt(s.trim()));
    if (cp.length !== 218) throw new Error("parse error: " + cp.length);
    const k = BigInt(inp.k);
    const feistel = (xL, xR) => {
        for (let i = 0; i < 220; i++) {
            const c = (i === 0 || i === 219) ? 0n : cp[i - 1];
            const t = md(k + xL + c);
            const t5 = md(t * t % r * t % r * t % r * t);
            if (i < 219) [xL, xR] = [md(xR + t5), xL];
            else xR = md(xR + t5);
        }
        return [xL, xR];
    };
    let [l, rr] = feistel(BigInt(inp.ins[0]), 0n);
    [l, rr] = feistel(md(l + BigInt(inp.ins[1])), rr);
    expected = [l, k];
} else if (name === "sha256") {
    const d = crypto.createHash("sha256").update(Buffer.from(inp.msg.map(Number))).digest("hex");
    expected = [BigInt("0x" + d.slice(0, 32)), BigInt("0x" + d.slice(32))];
} else if (name === "poseidon") {
    // No independent reference (circomlib's constants are for BN254, see poseidon.circom);
    // only check the public input position.
    if (pub.length !== 2 || BigInt(pub[1]) !== BigInt(inp.a)) throw new Error("public.json mismatch");
    console.log("public.json layout ok (no reference value for Poseidon on BLS12-381)");
    process.exit(0);
}
const got = pub.map(BigInt);
if (got.length !== expected.length || got.some((v, i) => v !== expected[i])) {
    console.error("public.json mismatch: got", pub, "expected", expected.map(String));
    process.exit(1);
}
console.log("public.json matches an independent computation");
EOF
}

# Header facts of a zkey/r1cs, written to info.json for the tests.
write_info() {
    node - "$1" "$2" "$3" <<'EOF'
const fs = require("fs");
const [work, dir, name] = process.argv.slice(2);
function sections(file, magic) {
    const b = fs.readFileSync(file);
    if (b.toString("latin1", 0, 4) !== magic) throw new Error(file + ": bad magic");
    const n = b.readUInt32LE(8); let p = 12; const s = {}; const order = [];
    for (let i = 0; i < n; i++) {
        const id = b.readUInt32LE(p), size = Number(b.readBigUInt64LE(p + 4));
        s[id] = b.subarray(p + 12, p + 12 + size); order.push(id); p += 12 + size;
    }
    return { s, order };
}
const z = sections(work + "/circuit.zkey", "zkey");
const h = z.s[2]; const n8q = h.readUInt32LE(0), n8r = h.readUInt32LE(4 + n8q);
const o = 8 + n8q + n8r;
const r1 = sections(work + "/circuit.r1cs", "r1cs").s[1];
const fs8 = r1.readUInt32LE(0); const q = 4 + fs8;
const info = {
    name, curve: "bls12381", protocol: "groth16",
    nConstraints: r1.readUInt32LE(q + 24),
    nVars: h.readUInt32LE(o), nPublic: h.readUInt32LE(o + 4), domainSize: h.readUInt32LE(o + 8),
    r1cs: { nWires: r1.readUInt32LE(q), nPubOut: r1.readUInt32LE(q + 4), nPubIn: r1.readUInt32LE(q + 8),
            nPrvIn: r1.readUInt32LE(q + 12) },
    nCoefs: z.s[4].readUInt32LE(0),
    zkeySectionOrder: z.order,
    files: {},
};
for (const f of fs.readdirSync(dir).sort()) {
    if (f === "info.json") continue;
    info.files[f] = fs.statSync(dir + "/" + f).size;
    if (f.endsWith(".gz")) info.files[f.slice(0, -3) + " (uncompressed)"] = fs.statSync(work + "/" + f.slice(0, -3)).size;
}
fs.writeFileSync(dir + "/info.json", JSON.stringify(info, null, 2) + "\n");
console.log(`    ${name}: constraints=${info.nConstraints} nVars=${info.nVars} nPublic=${info.nPublic} domainSize=${info.domainSize} nCoefs=${info.nCoefs}`);
EOF
}

# Copies a generated file into the fixture tree. By default files are stored raw (the
# tests open tests/fixtures/<name>/circuit.zkey directly). With GZIP_OVER=<bytes>, files
# larger than that are stored as <file>.gz instead (gzip -9n: no name or timestamp, so
# reproducible): GZIP_OVER=4000000 takes the tree from ~32 MB to ~15 MB (sha256's zkey
# 22.5 -> 11.6 MB, its r1cs 7.1 -> 0.5 MB), but the consumers must then gunzip first.
GZIP_OVER=${GZIP_OVER:-0}
publish() {
    local src=$1 dst=$2
    rm -f "$dst" "$dst.gz"
    if [ "$GZIP_OVER" -gt 0 ] && [ "$(stat -c %s "$src")" -gt "$GZIP_OVER" ]; then
        gzip -9n -c "$src" >"$dst.gz"
    else
        cp "$src" "$dst"
    fi
}

# ---------------------------------------------------------------- circuits
for name in $CIRCUITS; do
    echo "---- $name"
    W=$WORK/$name; D=$OUT/$name
    rm -rf "$W"; mkdir -p "$W" "$D"
    write_input "$name" >"$D/input.json"
    run "$name: circom2 -p bls12381" "${CIRCOM[@]}" "$HERE/circuits/$name.circom" --r1cs --wasm -p bls12381 -o "$W"
    mv "$W/$name.r1cs" "$W/circuit.r1cs"
    run "$name: wtns calculate" "${SNARKJS[@]}" wtns calculate "$W/${name}_js/$name.wasm" "$D/input.json" "$D/witness.wtns"
    run "$name: wtns check" "${SNARKJS[@]}" wtns check "$W/circuit.r1cs" "$D/witness.wtns"
    run "$name: groth16 setup" "${SNARKJS[@]}" groth16 setup "$W/circuit.r1cs" "$PTAU" "$W/circuit_0.zkey"
    run "$name: zkey beacon (2^$BEACON_ITER_EXP)" "${SNARKJS[@]}" zkey beacon "$W/circuit_0.zkey" "$W/circuit.zkey" \
        "$ZKEY_BEACON" $BEACON_ITER_EXP -n="g16 fixtures zkey beacon"
    if [ "${ZKEY_VERIFY:-1}" = 1 ]; then
        run "$name: zkey verify" "${SNARKJS[@]}" zkey verify "$W/circuit.r1cs" "$PTAU" "$W/circuit.zkey"
    fi
    run "$name: export verificationkey" "${SNARKJS[@]}" zkey export verificationkey "$W/circuit.zkey" "$D/verification_key.json"
    # public.json is a function of the witness; recompute it from the witness alone so
    # that a kept proof is checked against the fresh values.
    run "$name: wtns export json" "${SNARKJS[@]}" wtns export json "$D/witness.wtns" "$W/witness.json"
    node -e '
        const fs = require("fs"); const [w, vk, out] = process.argv.slice(1);
        const n = JSON.parse(fs.readFileSync(vk)).nPublic;
        fs.writeFileSync(out, JSON.stringify(JSON.parse(fs.readFileSync(w)).slice(1, 1 + n), null, 1) + "\n");' \
        "$W/witness.json" "$D/verification_key.json" "$W/public.json"
    keep=0
    if [ "${NEW_PROOF:-0}" != 1 ] && [ -f "$D/proof.json" ] && [ -f "$D/public.json" ] &&
       node -e 'const fs = require("fs"), [a, b] = process.argv.slice(1).map(f => JSON.parse(fs.readFileSync(f)));
                process.exit(JSON.stringify(a) === JSON.stringify(b) ? 0 : 1)' "$W/public.json" "$D/public.json" &&
       verify_ok "$D" >/dev/null 2>&1; then
        keep=1
        echo "==> $name: existing proof.json still verifies, kept"
    fi
    if [ $keep = 0 ]; then
        run "$name: groth16 prove" "${SNARKJS[@]}" groth16 prove "$W/circuit.zkey" "$D/witness.wtns" "$D/proof.json" "$D/public.json"
    fi
    run "$name: groth16 verify" verify_ok "$D"
    check_public "$name" "$D/input.json" "$D/public.json"
    publish "$W/circuit.r1cs" "$D/circuit.r1cs"
    publish "$W/circuit.zkey" "$D/circuit.zkey"
    write_info "$W" "$D" "$name"
done

# Checksums of everything deterministic (all but proof.json and info.json, which lists
# the proof's size). A change after a re-run means the toolchain is not reproducible.
sums=$(cd "$OUT" && find . -path ./SHA256SUMS -prune -o -type f ! -name proof.json ! -name info.json ! -name README.md -print |
       sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum)
if [ -f "$OUT/SHA256SUMS" ] && ! diff <(cat "$OUT/SHA256SUMS") <(echo "$sums") >"$WORK/sums.diff"; then
    echo "NOTE: SHA256SUMS changed (expected only if circuits, inputs or versions changed):"
    sed 's/^/    /' "$WORK/sums.diff"
fi
echo "$sums" >"$OUT/SHA256SUMS"

T_END=$(date +%s.%N)
echo
echo "Timings:"
printf '  %s\n' "${TIMINGS[@]}"
printf '  %-44s %8.1f s\n' "total" "$(awk -v a="$T_START" -v b="$T_END" 'BEGIN { print b - a }')"
echo "Fixture tree: $(du -sh "$OUT" | cut -f1) in $OUT"
