pragma circom 2.0.0;

// Tiny fixture: a chain of N multiplications.
//   t[0] = x * y
//   t[i] = t[i-1] * y          (i odd)
//   t[i] = t[i-1] * t[i-1] + x (i even, i > 0)
//   out  = t[N-1]
// Public: out (output), x (input). Private: y.
// Constraints alternate between "a*b = c" and "a*a = c - x" so that both
// single-term and multi-term C combinations appear.
template MultiplierChain(N) {
    signal input x;
    signal input y;
    signal output out;

    signal t[N];
    t[0] <== x * y;
    for (var i = 1; i < N; i++) {
        if (i % 2 == 1) {
            t[i] <== t[i-1] * y;
        } else {
            t[i] <== t[i-1] * t[i-1] + x;
        }
    }
    out <== t[N-1];
}

component main {public [x]} = MultiplierChain(8);
