/* Opening a file to read it whole, refusing what is not a regular file: a FIFO would
 * block the reader until some writer came (forever, for a path given by mistake), a
 * directory reads as empty on Linux, a device (/dev/zero) never ends. The mmap readers
 * (io/iden3.c) make the same check on their own. */
#ifndef G16_UTIL_INPUT_FILE_H
#define G16_UTIL_INPUT_FILE_H

#include <stdio.h>

#include "g16.h"

/* *f open for reading ("rb"), or G16_ERR_IO naming path and why ("not a regular file",
 * or the system's reason). */
g16_status input_file_open(FILE **f, const char *path);

#endif
