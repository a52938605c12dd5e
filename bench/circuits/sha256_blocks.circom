pragma circom 2.0.0;

// Benchmark circuit: SHA-256 of a 183-byte message (3 blocks, ~90k constraints, domain
// 2^17) with circomlib's Sha256, the digest as two public 128-bit outputs. Like the
// Filecoin circuits, most of its witness is bits: values 0 and 1.
include "../../tools/snarkjs/node_modules/circomlib/circuits/sha256/sha256.circom";
include "../../tools/snarkjs/node_modules/circomlib/circuits/bitify.circom";

template Sha256Bytes(nBytes) {
    signal input msg[nBytes];
    signal output hash[2];
    component bytes[nBytes];
    component sha = Sha256(nBytes * 8);
    for (var i = 0; i < nBytes; i++) {
        bytes[i] = Num2Bits(8);
        bytes[i].in <== msg[i];
        for (var j = 0; j < 8; j++)
            sha.in[8*i + j] <== bytes[i].out[7 - j];
    }
    component pack[2];
    for (var h = 0; h < 2; h++) {
        pack[h] = Bits2Num(128);
        for (var j = 0; j < 128; j++)
            pack[h].in[j] <== sha.out[128*h + 127 - j];
        hash[h] <== pack[h].out;
    }
}

component main = Sha256Bytes(183);
