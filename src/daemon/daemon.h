/* The proving daemon (`g16 daemon`): an HTTP/JSON API in front of a durable job store,
 * with workers that claim jobs and prove them.
 *
 *   HTTP (http_api.c) --store_submit--> job store (job_store.h) <--store_claim-- workers
 *                                                                  |  the key's pipeline
 *   heartbeat thread: renews the leases of jobs in flight,         |  (native partitions
 *   cancels those the store says are no longer ours                |  or zkey witnesses)
 *                                                                  v
 *                                                             store_finish / store_fail
 *
 * Lifecycle (daemon.c): the state directory is locked (one daemon per directory), the
 * token read or made, the store opened, jobs this owner held when it last died are put
 * back in the queue (kill -9 and restart: they run again), keys are preloaded, the HTTP
 * server binds (its port written to STATE_DIR/port), `concurrency` workers and the
 * heartbeat start. SIGTERM or SIGINT: no more submissions (503) or claims; jobs in flight
 * get shutdown_grace seconds to finish, then are cancelled and put back in the queue for
 * the next daemon; then everything stops and the process exits 0. */
#ifndef G16_DAEMON_DAEMON_H
#define G16_DAEMON_DAEMON_H

#include "daemon/config.h"

/* Runs the daemon until SIGTERM/SIGINT. Returns the process's exit status (0 after a
 * clean shutdown, 2 when it could not start; the reason printed on stderr). */
int daemon_run(const daemon_config *cfg);

#endif
