/* g16 info [--check] FILE: what a .zkey, .wtns, .r1cs or native key (.g16k) file holds,
 * told by its magic.
 * Opening checks headers and section sizes (O(1) per section); --check also reads every
 * coefficient, point, witness value or constraint. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "curve/encoding.h"
#include "g16.h"
#include "io/native_key.h"
#include "io/r1cs.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "util/parallel.h"

static int fail(g16_status st)
{
    fprintf(stderr, "g16 info: %s\n", cli_status_text(st));
    return 2;
}

static void print_sections(const iden3_file_t *f)
{
    printf("  sections (file %llu bytes", (unsigned long long)f->size);
    if (f->trailing)
        printf(", %llu trailing bytes after the last section", (unsigned long long)f->trailing);
    printf("):\n  %4s  %-14s %14s %14s\n", "id", "name", "offset", "size");
    for (uint32_t i = 0; i < f->n_sections; i++) {
        const iden3_section_t *s = &f->sections[i];
        printf("  %4u  %-14s %14llu %14llu\n", s->id, iden3_section_name(f, s->id),
               (unsigned long long)s->offset, (unsigned long long)s->size);
    }
}

/* A proving key's point arrays in the order IC, A, B1, B2 (the G2 one), C, H: count points
 * at data in section id, in snarkjs's layout (a native key's points are the same bytes). */
typedef struct {
    const uint8_t *data;
    size_t count;
    uint32_t id;
} key_points;
enum { KEY_POINT_ARRAYS = 6, KEY_POINTS_B2 = 3 };

/* Decodes point i of the arrays taken as one sequence (IC's first, H's last), in *a the
 * array it lies in. */
static g16_status decode_point(const key_points arrays[KEY_POINT_ARRAYS], size_t i, int *a)
{
    for (*a = 0; i >= arrays[*a].count; (*a)++)
        i -= arrays[*a].count;
    g1_affine_t p1;
    g2_affine_t p2;
    const uint8_t *p = arrays[*a].data;
    return *a == KEY_POINTS_B2 ? g2_decode_snarkjs(&p2, p + i * ZKEY_G2_BYTES, false)
                               : g1_decode_snarkjs(&p1, p + i * ZKEY_G1_BYTES, false);
}

typedef struct {
    const key_points *arrays;
    _Atomic size_t first_bad; /* the lowest failing point's index; the total when none */
} point_check;

static void check_range(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    point_check *c = ctx;
    int a;
    for (size_t i = begin; i < end && i < atomic_load(&c->first_bad); i++)
        if (decode_point(c->arrays, i, &a) != G16_OK) {
            size_t seen = atomic_load(&c->first_bad);
            while (i < seen && !atomic_compare_exchange_weak(&c->first_bad, &seen, i)) {
            }
            return;
        }
}

/* Every point on its curve, on every thread of the pool (a 2^27 key holds ~5e8 points:
 * about two minutes on one core); returns G16_OK or the first failure, named by section
 * and index. */
static g16_status check_points(const iden3_file_t *f, const key_points arrays[KEY_POINT_ARRAYS])
{
    size_t total = 0;
    for (int a = 0; a < KEY_POINT_ARRAYS; a++)
        total += arrays[a].count;
    point_check c = {.arrays = arrays};
    atomic_init(&c.first_bad, total);
    parallel_for(total, 1 << 12, check_range, &c);
    size_t bad = atomic_load(&c.first_bad);
    if (bad == total)
        return G16_OK;
    /* Decoded again here: the worker's message was set on its own thread. */
    int a;
    g16_status st = decode_point(arrays, bad, &a);
    for (int b = 0; b < a; b++)
        bad -= arrays[b].count;
    char why[256];
    snprintf(why, sizeof why, "%s", g16_last_error());
    return iden3_fail(f, arrays[a].id, st, ": point %zu: %s", bad, why);
}

static int info_zkey(const char *path, bool check)
{
    zkey_t k;
    g16_status st = zkey_open(&k, path);
    if (st != G16_OK)
        return fail(st);
    printf("%s: snarkjs proving key (zkey version %u), protocol %s, curve BLS12-381\n",
           k.file.name, k.file.version, zkey_protocol_name(k.protocol));
    printf("  nVars %u, nPublic %u, domain size %u (2^%u), coefficients %u\n", k.n_vars,
           k.n_public, k.domain_size, k.log2_domain, k.n_coefs);
    printf("  points: IC %zu, A %zu, B1 %zu, B2 %zu (G2), C %zu, H %zu\n", k.ic.count,
           k.a.count, k.b1.count, k.b2.count, k.c.count, k.h.count);
    if (k.contributions)
        printf("  contributions: %llu bytes\n", (unsigned long long)k.contributions_size);
    else
        printf("  contributions: none (no section 10)\n");
    print_sections(&k.file);
    if (check) {
        const key_points arrays[KEY_POINT_ARRAYS] = {
            {k.ic.data, k.ic.count, ZKEY_SECTION_IC}, {k.a.data, k.a.count, ZKEY_SECTION_A},
            {k.b1.data, k.b1.count, ZKEY_SECTION_B1}, {k.b2.data, k.b2.count, ZKEY_SECTION_B2},
            {k.c.data, k.c.count, ZKEY_SECTION_C},    {k.h.data, k.h.count, ZKEY_SECTION_H},
        };
        st = zkey_validate_coefs(&k);
        if (st == G16_OK)
            st = check_points(&k.file, arrays);
        if (st != G16_OK) {
            zkey_close(&k);
            return fail(st);
        }
        printf("  check: %u coefficients valid; every point on its curve\n", k.n_coefs);
    }
    zkey_close(&k);
    return 0;
}

static int info_native_key(const char *path, bool check)
{
    native_key_t k;
    g16_status st = native_key_open(&k, path);
    if (st != G16_OK)
        return fail(st);
    size_t private_wires = k.n_vars - k.n_public - 1;
    printf("%s: g16 native proving key (g16k version %u), circuit %s (N %llu, public %llu), "
           "curve BLS12-381, H for snarkjs's coset\n",
           k.file.name, k.file.version, k.circuit, (unsigned long long)k.param_n,
           (unsigned long long)k.param_public);
    printf("  nVars %zu, nPublic %zu, domain size %zu (2^%u), constraints %zu\n", k.n_vars,
           k.n_public, k.domain_size, k.log2_domain, k.n_constraints);
    printf("  points: IC %zu, A %zu, B1 %zu, B2 %zu (G2), C %zu, H %zu\n", k.ic.count,
           k.a.count, k.b1.count, k.b2.count, k.c.count, k.h.count);
    printf("  density: %llu of %zu private wires in A, %llu in B\n",
           (unsigned long long)k.in_a, private_wires, (unsigned long long)k.in_b);
    print_sections(&k.file);
    if (check) {
        const key_points arrays[KEY_POINT_ARRAYS] = {
            {k.ic.data, k.ic.count, NATIVE_KEY_SECTION_VERIFYING},
            {k.a.data, k.a.count, NATIVE_KEY_SECTION_A},
            {k.b1.data, k.b1.count, NATIVE_KEY_SECTION_B1},
            {k.b2.data, k.b2.count, NATIVE_KEY_SECTION_B2},
            {k.c.data, k.c.count, NATIVE_KEY_SECTION_C},
            {k.h.data, k.h.count, NATIVE_KEY_SECTION_H},
        };
        if ((st = check_points(&k.file, arrays)) != G16_OK) {
            native_key_close(&k);
            return fail(st);
        }
        printf("  check: every point on its curve\n");
    }
    native_key_close(&k);
    return 0;
}

static int info_wtns(const char *path, bool check)
{
    wtns_t w;
    g16_status st = wtns_open(&w, path);
    if (st != G16_OK)
        return fail(st);
    printf("%s: witness (wtns version %u), curve BLS12-381 (scalar field, n8 %u)\n",
           w.file.name, w.file.version, w.n8);
    printf("  witness values %u\n", w.n_witness);
    print_sections(&w.file);
    if (check) {
        if ((st = wtns_validate(&w)) != G16_OK) {
            wtns_close(&w);
            return fail(st);
        }
        printf("  check: %u values below r, w[0] = 1\n", w.n_witness);
    }
    wtns_close(&w);
    return 0;
}

static int info_r1cs(const char *path, bool check)
{
    r1cs_t r;
    g16_status st = r1cs_open(&r, path);
    if (st != G16_OK)
        return fail(st);
    printf("%s: constraint system (r1cs version %u), curve BLS12-381 (scalar field, fs %u)\n",
           r.file.name, r.file.version, r.fs);
    printf("  wires %u, public outputs %u, public inputs %u, private inputs %u, labels %llu\n",
           r.n_wires, r.n_pub_out, r.n_pub_in, r.n_prv_in, (unsigned long long)r.n_labels);
    printf("  constraints %u\n", r.n_constraints);
    print_sections(&r.file);
    if (check) {
        if ((st = r1cs_validate(&r)) != G16_OK) {
            r1cs_close(&r);
            return fail(st);
        }
        printf("  check: %u constraints read, every wire and value in range\n",
               r.n_constraints);
    }
    r1cs_close(&r);
    return 0;
}

int cmd_info(int argc, char **argv)
{
    bool check = false;
    const char *path = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--check"))
            check = true;
        else if (!path && argv[i][0] != '-')
            path = argv[i];
        else
            return cli_usage_error("info");
    }
    if (!path)
        return cli_usage_error("info");

    /* The magic picks the reader; each reader then checks it again with the rest.
     * O_NONBLOCK and the regular-file check keep a FIFO or a device from hanging us. */
    unsigned char magic[4] = {0};
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        fprintf(stderr, "g16 info: %s: cannot open: %s\n", path, strerror(errno));
        return 2;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "g16 info: %s: not a regular file\n", path);
        close(fd);
        return 2;
    }
    ssize_t got = read(fd, magic, sizeof magic);
    int read_error = got < 0 ? errno : 0;
    close(fd);
    if (read_error) {
        fprintf(stderr, "g16 info: %s: cannot read: %s\n", path, strerror(read_error));
        return 2;
    }
    if (got == 4 && !memcmp(magic, "zkey", 4))
        return info_zkey(path, check);
    if (got == 4 && !memcmp(magic, "wtns", 4))
        return info_wtns(path, check);
    if (got == 4 && !memcmp(magic, "r1cs", 4))
        return info_r1cs(path, check);
    if (got == 4 && !memcmp(magic, "g16k", 4))
        return info_native_key(path, check);
    fprintf(stderr, "g16 info: %s: not a zkey, wtns, r1cs or g16k file (", path);
    if (got < 4)
        fprintf(stderr, "only %zd bytes", got);
    else
        fprintf(stderr, "magic %02x %02x %02x %02x", magic[0], magic[1], magic[2], magic[3]);
    fprintf(stderr, ")\n");
    return 2;
}
