/* libFuzzer target: the .wtns reader on arbitrary bytes. A witness that opens must expose
 * exactly nWitness values inside the input; validation must agree with reading them one
 * by one. */
#include <stddef.h>
#include <stdint.h>

#include "io/wtns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
    if (!ok)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wtns_t w;
    if (wtns_open_memory(&w, "fuzz.wtns", data, size) != G16_OK)
        return 0;
    require(w.n8 == WTNS_N8);
    uint64_t bytes = (uint64_t)w.n_witness * WTNS_N8;
    require(bytes == 0 || (w.values >= data && bytes <= size - (size_t)(w.values - data)));
    int all_canonical = 1;
    fr_t v;
    for (uint32_t i = 0; i < w.n_witness; i++)
        all_canonical &= wtns_get(&v, &w, i);
    require(!wtns_get(&v, &w, w.n_witness));
    g16_status st = wtns_validate(&w);
    if (!all_canonical)
        require(st == G16_ERR_FORMAT);
    zkey_t fake = {.n_vars = w.n_witness};
    require(wtns_check_zkey(&w, &fake) == G16_OK);
    wtns_close(&w);
    return 0;
}
