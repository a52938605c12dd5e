pragma circom 2.0.0;

// MiMCSponge (circomlib): MiMC-2n/n Feistel, x^5, 220 rounds, sponge over 2 inputs.
// A Feistel network is a permutation for any round function, and circomlib's round
// constants are just field elements (< BN254 r < BLS12-381 r), so the circuit is a
// well-defined keyed hash in the BLS12-381 scalar field (log_5(r) ~ 110 for both
// fields, so 220 rounds is the same design point). Its outputs differ from the
// BN254 instance, of course.
// Public: k (input), hash (output). Private: ins[2].
include "../node_modules/circomlib/circuits/mimcsponge.circom";

template MiMCHash() {
    signal input ins[2];
    signal input k;
    signal output hash;

    component h = MiMCSponge(2, 220, 1);
    h.ins[0] <== ins[0];
    h.ins[1] <== ins[1];
    h.k <== k;
    hash <== h.outs[0];
}

component main {public [k]} = MiMCHash();
