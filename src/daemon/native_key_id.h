/* The ids of the daemon's native keys: "synthetic-N" for the synthetic circuit of N
 * constraints and 16 public inputs, "synthetic-N-pK" for K public inputs. One canonical
 * spelling each (no "0010", no "-p16"): an id names one key file. Apart from the key
 * cache so that submissions (submit_request.c) name keys as the cache parses them, and
 * the fuzzer checks that without the cache. */
#ifndef G16_DAEMON_NATIVE_KEY_ID_H
#define G16_DAEMON_NATIVE_KEY_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Public inputs a native job may ask for: 1..NATIVE_KEY_MAX_PUBLIC (16 when not given). */
enum { NATIVE_KEY_DEFAULT_PUBLIC = 16, NATIVE_KEY_MAX_PUBLIC = 64 };

/* The id of the key for n constraints and k public inputs. */
void native_key_id_format(char *id, size_t cap, size_t n, size_t k);
/* An id's n and k, when it is a canonical one with n from SYNTHETIC_MIN_CONSTRAINTS to
 * max_constraints and k from 1 to NATIVE_KEY_MAX_PUBLIC. */
bool native_key_id_parse(size_t *n, size_t *k, const char *id, int64_t max_constraints);

#endif
