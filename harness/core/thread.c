// SPDX-License-Identifier: GPL-2.0
/*
 * A consumer thread's stop: a signal ends the poll it sleeps in at once, where a flag alone waits
 * for the poll's timeout. libperf's perf_evlist__poll and libbpf's ring_buffer__poll own their
 * descriptor sets, so an eventfd cannot be added to them; a signal reaches them all.
 */
#include "thread.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

/* How long to wait for the thread to leave before waking it again (a wake that landed before it
 * went back to sleep is lost; this bounds the cost of that race). */
#define REWAKE_NS 2000000L

static pthread_once_t wake_once = PTHREAD_ONCE_INIT;

static void on_wake(int sig)
{
	(void)sig;
}

static void wake_install(void)
{
	/* SA_RESTART: reads and writes resume; poll, epoll_wait and nanosleep still return EINTR. */
	struct sigaction sa = {.sa_handler = on_wake, .sa_flags = SA_RESTART};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN, &sa, NULL);
}

int tb_thread_stop(pthread_t thread, atomic_bool *stop)
{
	struct timespec ts;
	int ret;

	pthread_once(&wake_once, wake_install);
	atomic_store(stop, true);
	for (;;) {
		ret = pthread_kill(thread, SIGRTMIN);
		if (ret)
			break; /* the thread has exited: join reaps it */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += REWAKE_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		ret = pthread_timedjoin_np(thread, NULL, &ts);
		if (ret != ETIMEDOUT)
			return ret;
	}
	return pthread_join(thread, NULL);
}
