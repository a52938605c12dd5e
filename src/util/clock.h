/* A monotonic clock in milliseconds, for stage timings (never the wall-clock date). */
#ifndef G16_UTIL_CLOCK_H
#define G16_UTIL_CLOCK_H

double clock_ms(void);

#endif
