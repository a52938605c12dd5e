/* The seed corpora of fuzz_json and fuzz_trace.
 *   DIR/json: each snarkjs fixture's proof.json, public.json and verification_key.json
 *             behind fuzz_json's selector byte (0 proof, 1 public, 2 key), and its proof in
 *             the 192-byte binary form (proof_bin_encode, g16's writer).
 *   DIR/trace: traces written by g16's trace writer: a small pipeline's timeline (two jobs
 *             of three partitions: synthesis on two CPU threads, uploads, kernels and waits
 *             on one GPU, proofs finished and verified) and a single event.
 * Usage: seeds_text DIR FIXTURES (FIXTURES: tests/fixtures; DIR and its folders are
 * created). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "io/proof_bin.h"
#include "io/snarkjs_json.h"
#include "trace/trace_file.h"

static int make_dir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "seeds_text: cannot create %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

/* Writes selector || bytes to path. */
static int write_seed(const char *path, uint8_t selector, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(&selector, 1, 1, f) == 1 && (n == 0 || fwrite(bytes, n, 1, f) == 1);
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "seeds_text: cannot write %s\n", path);
    return !ok;
}

/* selector || the whole file at src. */
static int copy_seed(const char *dst, uint8_t selector, const char *src)
{
    FILE *f = fopen(src, "rb");
    if (!f) {
        fprintf(stderr, "seeds_text: %s: %s\n", src, strerror(errno));
        return 1;
    }
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    int too_long = !feof(f);
    fclose(f);
    if (too_long) {
        fprintf(stderr, "seeds_text: %s is over %zu bytes\n", src, sizeof buf);
        return 1;
    }
    return write_seed(dst, selector, buf, n);
}

static int json_seeds(const char *dir, const char *fixtures)
{
    static const char *const circuits[] = {"multiplier", "mimc", "poseidon", "sha256"};
    int rc = 0;
    char src[4200], dst[4200];
    for (size_t i = 0; i < sizeof circuits / sizeof circuits[0]; i++) {
        const char *c = circuits[i];
        snprintf(src, sizeof src, "%s/%s/proof.json", fixtures, c);
        snprintf(dst, sizeof dst, "%s/proof-%s", dir, c);
        rc |= copy_seed(dst, 0, src);
        groth16_proof p;
        if (json_read_proof(&p, src) != G16_OK) {
            fprintf(stderr, "seeds_text: %s\n", g16_last_error());
            rc = 1;
        } else {
            uint8_t bin[PROOF_BIN_BYTES];
            proof_bin_encode(bin, &p);
            snprintf(dst, sizeof dst, "%s/proof-%s.bin", dir, c);
            rc |= write_seed(dst, 0, bin, sizeof bin);
        }
        snprintf(src, sizeof src, "%s/%s/public.json", fixtures, c);
        snprintf(dst, sizeof dst, "%s/public-%s", dir, c);
        rc |= copy_seed(dst, 1, src);
        snprintf(src, sizeof src, "%s/%s/verification_key.json", fixtures, c);
        snprintf(dst, sizeof dst, "%s/vk-%s", dir, c);
        rc |= copy_seed(dst, 2, src);
    }
    return rc;
}

static trace_event span(trace_kind kind, int job, int part, int device, unsigned thread,
                        const char *name, uint64_t start_us, uint64_t end_us, uint64_t bytes)
{
    trace_event e = {.start_ns = start_us * 1000, .end_ns = end_us * 1000, .bytes = bytes,
                     .job = job, .partition = part, .device = (int16_t)device,
                     .kind = (uint8_t)kind, .thread = thread};
    snprintf(e.name, sizeof e.name, "%s", name);
    return e;
}

/* Two jobs of three partitions; times in microseconds. Threads 1-2 synthesize, 3 proves
 * on device 0, 4 finishes. */
static size_t pipeline_events(trace_event *ev)
{
    size_t n = 0;
    uint64_t gpu_free = 0;
    for (int job = 0; job < 2; job++)
        for (int p = 0; p < 3; p++) {
            int k = 3 * job + p;
            unsigned synth = 1 + (unsigned)(k % 2);
            uint64_t s0 = (uint64_t)k * 600, s1 = s0 + 1100;
            ev[n++] = span(TRACE_BUDGET_WAIT, job, p, TRACE_CPU, synth, "budget", s0, s0 + 40, 0);
            ev[n++] = span(TRACE_SYNTH, job, p, TRACE_CPU, synth, "synth", s0 + 40, s1, 0);
            uint64_t g0 = s1 > gpu_free ? s1 : gpu_free;
            if (g0 > s1)
                ev[n++] = span(TRACE_QUEUE_WAIT, job, p, TRACE_CPU, 3, "prove queue", s1, g0, 0);
            uint64_t t = g0;
            ev[n++] = span(TRACE_PROVE, job, p, TRACE_CPU, 3, "prove", g0, g0 + 700, 0);
            ev[n++] = span(TRACE_GPU, job, p, 0, 3, "partition", g0, g0 + 680, 0);
            ev[n++] = span(TRACE_UPLOAD, job, p, 0, 3, "a, b, c", t, t + 60, 3u << 20);
            t += 60;
            static const char *const kernels[] = {"NTT/H", "MSM_H", "MSM_A", "MSM_B1",
                                                  "MSM_B2", "MSM_C"};
            static const uint64_t us[] = {150, 300, 40, 20, 50, 40};
            for (size_t i = 0; i < 6; i++) {
                if (i == 2)
                    ev[n++] = span(TRACE_EVENT_WAIT, job, p, 0, 3, "stream", t, t + 5, 0);
                t += i == 2 ? 5 : 0;
                ev[n++] = span(TRACE_KERNEL, job, p, 0, 3, kernels[i], t, t + us[i], 0);
                t += us[i];
            }
            ev[n++] = span(TRACE_LOCK_WAIT, job, p, TRACE_CPU, 4, "finish", t, t + 2, 0);
            ev[n++] = span(TRACE_FINALIZE, job, p, TRACE_CPU, 4, "proof", t + 2, t + 10, 0);
            ev[n++] = span(TRACE_VERIFY, job, p, TRACE_CPU, 4, "verify", t + 10, t + 30, 0);
            gpu_free = g0 + 700;
        }
    return n;
}

/* Recording is never switched on here, so the writer's epoch is 0 and the events' times
 * go into the file as they are. */
static int write_trace(const char *path, const trace_event *ev, size_t n)
{
    trace_writer *w;
    g16_status st = trace_writer_open(&w, path, "seeds_text", 0, 0);
    if (!st) {
        st = trace_writer_write(w, ev, n);
        g16_status close_st = trace_writer_close(w);
        st = st ? st : close_st;
    }
    if (st)
        fprintf(stderr, "seeds_text: %s: %s\n", path, g16_last_error());
    return st != G16_OK;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: seeds_text DIR FIXTURES\n");
        return 2;
    }
    char json[4200], trace[4200], path[4300];
    snprintf(json, sizeof json, "%s/json", argv[1]);
    snprintf(trace, sizeof trace, "%s/trace", argv[1]);
    if (make_dir(argv[1]) || make_dir(json) || make_dir(trace))
        return 1;
    int rc = json_seeds(json, argv[2]);
    trace_event ev[128];
    size_t n = pipeline_events(ev);
    snprintf(path, sizeof path, "%s/pipeline.trace", trace);
    rc |= write_trace(path, ev, n);
    snprintf(path, sizeof path, "%s/one.trace", trace);
    rc |= write_trace(path, ev, 1);
    return rc;
}
