/* SPDX-License-Identifier: GPL-2.0 */
/* probe: shared with tracers/bpf/bundled.c. */
#ifndef TB_PROBE_H
#define TB_PROBE_H

#include "tb-common.h"

/* Value of the `counts` map of the count body, keyed by tgid. */
struct probe_count {
	__u64 n;   /* hits */
	__u64 sum; /* of what the probe read: the first argument, or the return value */
};

#endif
