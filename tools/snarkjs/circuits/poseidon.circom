pragma circom 2.0.0;

// circomlib Poseidon(2) compiled for BLS12-381. It compiles and computes a
// deterministic function, but it is NOT a standard Poseidon instance for this
// field: the round constants and (sparse, pre-factored) MDS matrices in
// poseidon_constants.circom were generated modulo BN254's r, so the pre-factoring
// identities only hold modulo that prime. Useful as a prover test circuit only.
// Public: a (input), out (output). Private: b.
include "../node_modules/circomlib/circuits/poseidon.circom";

template PoseidonHash() {
    signal input a;
    signal input b;
    signal output out;

    component h = Poseidon(2);
    h.inputs[0] <== a;
    h.inputs[1] <== b;
    out <== h.out;
}

component main {public [a]} = PoseidonHash();
