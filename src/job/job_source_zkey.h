/* The zkey source of a job (JOB_SOURCE_ZKEY in job/job.h): partitions whose witnesses are
 * .wtns files for a snarkjs key. Internal to src/job: job.c calls these from job_create and
 * job_synthesize_partition. */
#ifndef G16_JOB_JOB_SOURCE_ZKEY_H
#define G16_JOB_JOB_SOURCE_ZKEY_H

#include "job/job.h"

/* job_create's checks for a zkey source: the zkey and a witness per partition given, the
 * prover key (when given) of the zkey's shape, the coefficients valid unless the caller
 * says it checked them. G16_ERR_INVALID_ARGUMENT naming the problem, or the zkey's
 * G16_ERR_FORMAT naming the bad entry. */
g16_status job_zkey_check_config(const job_config *cfg);

/* Partition p's synthesis: maps its witness (or takes the caller's mapping), checks it
 * against the key and fills bufs: z in Montgomery form, a, b, c over the whole domain.
 * Failures are "partition P: <file>: <why>". */
g16_status job_zkey_synthesize(const job_config *cfg, size_t p, const job_buffers *bufs);

#endif
