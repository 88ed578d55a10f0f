// SPDX-License-Identifier: GPL-2.0
/*
 * core/thread.h: a consumer blocked in a long poll(2) is woken by its stop (the poll returns
 * EINTR, not its timeout), leaves, and is joined; a thread that already left is joined too.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include "core/thread.h"
#include "tb_test.h"

struct consumer {
	atomic_bool stop, entered;
	int fd;
	int polls, eintr, timeouts;
};

static void *consume(void *arg)
{
	struct consumer *c = arg;
	struct pollfd pfd = {.fd = c->fd, .events = POLLIN};

	while (!atomic_load(&c->stop)) {
		/* Nothing is ever written: only a wake-up ends this before its 60 s. */
		int n;

		atomic_store(&c->entered, true);
		n = poll(&pfd, 1, 60000);

		c->polls++;
		if (n < 0 && errno == EINTR)
			c->eintr++;
		else if (n == 0)
			c->timeouts++;
	}
	return NULL;
}

static void test_wakes_poll(void)
{
	struct consumer c = {.polls = 0};
	pthread_t th;
	int fds[2];

	CU_ASSERT_FATAL(pipe(fds) == 0);
	c.fd = fds[0];
	atomic_store(&c.stop, false);
	atomic_store(&c.entered, false);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, consume, &c) == 0);
	/* Once it is about to poll: a wake that lands before the poll is sent again. */
	while (!atomic_load(&c.entered))
		usleep(1000);
	CU_ASSERT_EQUAL(tb_thread_stop(th, &c.stop), 0);
	CU_ASSERT(atomic_load(&c.stop));
	CU_ASSERT_EQUAL(c.timeouts, 0);
	CU_ASSERT(c.polls >= 1);
	CU_ASSERT(c.eintr >= 1);
	close(fds[0]);
	close(fds[1]);
}

static void *leave(void *arg)
{
	(void)arg;
	return NULL;
}

static void test_joins_exited(void)
{
	atomic_bool stop;
	pthread_t th;

	atomic_store(&stop, false);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, leave, NULL) == 0);
	usleep(10000);
	CU_ASSERT_EQUAL(tb_thread_stop(th, &stop), 0);
	CU_ASSERT(atomic_load(&stop));
}

static CU_TestInfo thread_tests[] = {
	{"a stop wakes a thread out of its poll and joins it", test_wakes_poll},
	{"a thread that already left is joined", test_joins_exited},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("core-thread", NULL, NULL, thread_tests);
