pragma circom 2.0.0;

// Benchmark circuit: 2^16 + 1000 dense multiplications (domain 2^17), every witness
// value a random-looking field element: the worst case for the MSMs.
template MulChain(N) {
    signal input x;
    signal input y;
    signal output out;
    signal t[N];
    t[0] <== x * y;
    for (var i = 1; i < N; i++)
        t[i] <== t[i-1] * t[i-1] + y;
    out <== t[N-1];
}

component main {public [x]} = MulChain(66536);
