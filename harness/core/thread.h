/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stopping a consumer thread without waiting out its poll timeout (thread.c).
 */
#ifndef TB_THREAD_H
#define TB_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/*
 * Set *stop, then wake thread out of a poll(2), epoll_wait(2) or nanosleep(2) it is blocked in
 * (SIGRTMIN, whose handler, installed on first use, does nothing and restarts every other
 * call) until it exits, and join it. The thread must check *stop after each wait. A consumer's teardown then costs
 * its last drain, not the rest of a 10-50 ms poll timeout (libperf's and libbpf's poll loops
 * take no extra descriptor to wake them). Returns pthread_join's result: 0 or a positive errno.
 */
int tb_thread_stop(pthread_t thread, atomic_bool *stop);

#endif
