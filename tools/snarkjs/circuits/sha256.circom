pragma circom 2.0.0;

// SHA-256 of a fixed-length 55-byte message (440 bits <= 447, so one 512-bit block)
// using circomlib's Sha256. The message is a private input given as bytes; the
// 256-bit digest is exposed as two public outputs of 128 bits each (big-endian:
// hash[0] = first 16 digest bytes, hash[1] = last 16).
include "../node_modules/circomlib/circuits/sha256/sha256.circom";
include "../node_modules/circomlib/circuits/bitify.circom";

template Sha256Bytes(nBytes) {
    signal input msg[nBytes];
    signal output hash[2];

    component bytes[nBytes];
    component sha = Sha256(nBytes * 8);
    for (var i = 0; i < nBytes; i++) {
        bytes[i] = Num2Bits(8);
        bytes[i].in <== msg[i];
        for (var j = 0; j < 8; j++) {
            // circomlib's Sha256 takes bits MSB-first within each byte.
            sha.in[8*i + j] <== bytes[i].out[7 - j];
        }
    }

    component pack[2];
    for (var h = 0; h < 2; h++) {
        pack[h] = Bits2Num(128);
        for (var j = 0; j < 128; j++) {
            pack[h].in[j] <== sha.out[128*h + 127 - j];
        }
        hash[h] <== pack[h].out;
    }
}

component main = Sha256Bytes(55);
