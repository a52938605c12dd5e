/* Boolean and 32-bit word gadgets over the constraint system (cs.h).
 *
 * A cs_bit is a constant, a wire, or the negation of a wire (1 - z[wire]); negation is
 * free and constants are folded, so an operation with a known operand costs nothing. The
 * bit's value is cached in the struct so witness code never reads field elements back.
 * Every wire a gadget creates for a bit holds 0 or 1: booleanity is either enforced
 * (cs_bit_alloc: b * (1 - b) = 0) or implied by the defining constraint of an AND, XOR,
 * CH or MAJ of bits.
 *
 * A cs_word is 32 bits in little-endian order: b[0] is the least significant bit, so
 * b[i] carries weight 2^i in packing and in additions. Rotations and shifts only rewire.
 *
 * Constraint costs (all operands wires, none known): alloc 1, AND 1, XOR 1, CH 1, MAJ 2,
 * XOR3 2, decomposition into n bits n + 1, packing into a new wire 1, word addition of k
 * operands 32 + ceil(log2 k) + 1 (the result and carry bits plus one equality).
 * Each bit operation appears in CHECK names as its kind: "and", "xor", "ch", "maj",
 * "boolean"; word gadgets add "bit %u".
 */
#ifndef G16_CIRCUIT_GADGETS_H
#define G16_CIRCUIT_GADGETS_H

#include "cs.h"

enum { CS_BIT_CONST = 0, CS_BIT_VAR = 1, CS_BIT_NOT = 2 };

typedef struct {
    cs_var var;    /* for CS_BIT_VAR and CS_BIT_NOT */
    uint8_t kind;  /* CS_BIT_* */
    uint8_t value; /* the bit's value, negation applied */
} cs_bit;

typedef struct {
    cs_bit b[32]; /* b[0]: least significant */
} cs_word;

/* --- bits ----------------------------------------------------------------------------------- */

cs_bit cs_bit_const(bool value);
/* A new private wire with its booleanity constraint. */
cs_bit cs_bit_alloc(cs_t *cs, bool value);
cs_bit cs_bit_not(cs_bit a);
cs_bit cs_bit_and(cs_t *cs, cs_bit a, cs_bit b);
cs_bit cs_bit_xor(cs_t *cs, cs_bit a, cs_bit b);
cs_bit cs_bit_xor3(cs_t *cs, cs_bit a, cs_bit b, cs_bit c);
/* a ? b : c */
cs_bit cs_bit_ch(cs_t *cs, cs_bit a, cs_bit b, cs_bit c);
/* majority: at least two of a, b, c */
cs_bit cs_bit_maj(cs_t *cs, cs_bit a, cs_bit b, cs_bit c);

/* lc += coeff * bit (a NOT bit adds coeff * (1 - wire)). */
void cs_lc_add_bit(cs_lc *lc, cs_bit bit, const fr_t *coeff);
/* lc += sum 2^(shift+i) * bits[i], i < n, shift + n <= 256. */
void cs_lc_add_bits(cs_lc *lc, const cs_bit *bits, unsigned n, unsigned shift);

/* bits[0..n) := the little-endian binary digits of x, n <= 254 (so the decomposition is
 * unique in Fr): n booleanity constraints and one "pack" equality. A value of x that does
 * not fit in n bits leaves the "pack" constraint unsatisfied. */
void cs_num_to_bits(cs_t *cs, cs_bit *bits, cs_var x, unsigned n);
/* A new wire equal to sum 2^i bits[i], n <= 254: one constraint. */
cs_var cs_bits_pack(cs_t *cs, const cs_bit *bits, unsigned n);

/* --- 32-bit words --------------------------------------------------------------------------- */

cs_word cs_word_const(uint32_t value);
/* 32 new private bits: 32 booleanity constraints. */
cs_word cs_word_alloc(cs_t *cs, uint32_t value);
uint32_t cs_word_value(const cs_word *w);
cs_word cs_word_rotr(const cs_word *w, unsigned n);
cs_word cs_word_shr(const cs_word *w, unsigned n);
cs_word cs_word_not(const cs_word *w);
cs_word cs_word_and(cs_t *cs, const cs_word *a, const cs_word *b);
cs_word cs_word_xor(cs_t *cs, const cs_word *a, const cs_word *b);
cs_word cs_word_xor3(cs_t *cs, const cs_word *a, const cs_word *b, const cs_word *c);
cs_word cs_word_ch(cs_t *cs, const cs_word *a, const cs_word *b, const cs_word *c);
cs_word cs_word_maj(cs_t *cs, const cs_word *a, const cs_word *b, const cs_word *c);

enum { CS_WORD_ADD_MAX = 8 };
/* (constant + sum of n words) mod 2^32, 1 <= n <= CS_WORD_ADD_MAX. Known bits are folded
 * into the constant; when every bit is known the result is a constant word. */
cs_word cs_word_add(cs_t *cs, const cs_word *const *words, unsigned n, uint32_t constant);

/* The word whose most significant bit is bits[0] (FIPS 180-4 message order). */
cs_word cs_word_from_be_bits(const cs_bit *bits);
/* Inverse of cs_word_from_be_bits. */
void cs_word_to_be_bits(cs_bit *bits, const cs_word *w);

#endif
