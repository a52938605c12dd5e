/* A job submission's body (POST /v1/jobs), checked and normalized before anything is
 * stored: what the daemon will run, or why it will not (an HTTP status and a message).
 * Kept apart from the HTTP server so that the checks can be fuzzed on their own
 * (tests/fuzz/fuzz_daemon.c): they see nothing of the daemon but its settings and a way
 * to look up a key's shape. */
#ifndef G16_DAEMON_SUBMIT_REQUEST_H
#define G16_DAEMON_SUBMIT_REQUEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/config.h"
#include "daemon/key_cache.h"

/* What a submission is checked against. key_shape answers G16_ERR_INVALID_ARGUMENT for an
 * unknown key (its message is passed on as a 422), any other error as a failure to read
 * the key (500). */
typedef struct {
    const daemon_config *cfg; /* limits and input directories */
    g16_status (*key_shape)(void *keys, key_shape *shape, const char *id);
    void *keys;
} submit_rules;

/* An accepted submission. norm is the job as stored: {"kind": "native", "key",
 * "circuit", "constraints", "public", "partitions", "seed", "priority"} or {"kind":
 * "zkey", "key", "witnesses": [resolved paths], "priority"}; the caller owns it. */
typedef struct {
    json_t *norm;
    int64_t partitions;
    int64_t priority;
} submit_request;

/* A refused one: 400 malformed or invalid, 403 a witness outside the input directories,
 * 422 what the daemon cannot serve (an unknown key or circuit, a witness that is missing,
 * unreadable or of another circuit), 500 out of memory or a key that cannot be read. */
typedef struct {
    unsigned code;
    char msg[768];
} submit_rejection;

/* Records a refusal in *r and returns false (also the caller's own refusals: a full queue,
 * a store failure). */
__attribute__((format(printf, 3, 4))) bool submit_reject(submit_rejection *r, unsigned code,
                                                         const char *fmt, ...);

/* Parses and checks body[0..len). True with *out filled, or false with *why. */
bool submit_request_parse(submit_request *out, submit_rejection *why, const submit_rules *rules,
                          const char *body, size_t len);

#endif
