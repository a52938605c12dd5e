/* The job store in PostgreSQL: not written yet (this commit brings SQLite first). */
#include "daemon/store_impl.h"

#include "util/status.h"

g16_status store_postgres_open(job_store **store, const char *url)
{
    *store = NULL;
    return status_fail(G16_ERR_UNSUPPORTED, "postgresql store: not implemented yet");
}
