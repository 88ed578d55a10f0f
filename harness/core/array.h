/* SPDX-License-Identifier: GPL-2.0 */
/* Growing arrays: the one copy of "double the capacity when full". */
#ifndef TB_ARRAY_H
#define TB_ARRAY_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

/*
 * Make room for need elements of elem bytes in *v, whose capacity is *cap: when need exceeds
 * it, the capacity doubles (from first) until it does not. Returns 0, or -ENOMEM with *v and
 * *cap unchanged.
 */
static inline int tb_array_reserve(void **v, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t n = *cap ? *cap : first;
	void *nv;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	nv = realloc(*v, n * elem);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = n;
	return 0;
}

#endif /* TB_ARRAY_H */
