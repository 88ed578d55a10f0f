// SPDX-License-Identifier: GPL-2.0
/* The proof of tracing's vocabulary (events.h): op event lists and tracer hooks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/events.h"
#include "core/tb.h"

void tb_op_events_init(struct tb_op_events *e)
{
	memset(e, 0, sizeof(*e));
}

const struct tb_op_event *tb_op_events_find(const struct tb_op_events *e, const char *name, int who)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (e->ev[i].who == who && !strcmp(e->ev[i].name, name))
			return &e->ev[i];
	return NULL;
}

/* The entry of name and who, a new one when there is none; NULL when the list is full. */
static struct tb_op_event *slot(struct tb_op_events *e, const char *name, int who)
{
	struct tb_op_event *ev = (struct tb_op_event *)tb_op_events_find(e, name, who);

	if (ev)
		return ev;
	if (e->n >= TB_OP_EVENTS_MAX)
		return NULL;
	ev = &e->ev[e->n++];
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->nr = -1;
	ev->who = who;
	return ev;
}

int tb_op_events_syscall(struct tb_op_events *e, const char *name, int nr, double per_op,
			 double exits, int who, unsigned int flags)
{
	struct tb_op_event *ev = slot(e, name, who);

	if (!ev)
		return -ENOSPC;
	ev->nr = nr;
	ev->per_op += per_op;
	ev->exits += exits;
	ev->flags |= flags;
	return 0;
}

int tb_op_events_add(struct tb_op_events *e, const char *name, double per_op, int who,
		     unsigned int flags)
{
	struct tb_op_event *ev = slot(e, name, who);

	if (!ev)
		return -ENOSPC;
	ev->per_op += per_op;
	ev->flags |= flags;
	return 0;
}

int tb_op_events_table(struct tb_op_events *e, const struct tb_op_spec *t, size_t n)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < n; i++)
		ret = t[i].nr >= 0
			      ? tb_op_events_syscall(e, t[i].name, t[i].nr, t[i].per_op, t[i].exits,
						     t[i].who, t[i].flags)
			      : tb_op_events_add(e, t[i].name, t[i].per_op, t[i].who, t[i].flags);
	return ret;
}

void tb_hooks_init(struct tb_hooks *h)
{
	memset(h, 0, sizeof(*h));
	h->kind = TB_HOOK_NONE;
	h->scope = TB_SCOPE_PROCESS;
}

int tb_hooks_add(struct tb_hooks *h, const char *name, int nr, bool counted)
{
	struct tb_hook *n;

	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 8;

		n = realloc(h->h, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		h->h = n;
		h->cap = cap;
	}
	n = &h->h[h->n++];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->nr = nr;
	n->counted = counted;
	return 0;
}

void tb_hooks_free(struct tb_hooks *h)
{
	free(h->h);
	h->h = NULL;
	h->n = h->cap = 0;
}

static const char *const kinds[] = {"none", "events", "sampling", "counter", "unknown"};
static const char *const scopes[] = {"process", "tree", "system"};

static int parse(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	return -1;
}

const char *tb_hook_kind_name(int kind)
{
	return kind >= 0 && (size_t)kind < TB_ARRAY_SIZE(kinds) ? kinds[kind] : "unknown";
}

int tb_hook_kind_parse(const char *s)
{
	return parse(kinds, TB_ARRAY_SIZE(kinds), s);
}

const char *tb_hook_scope_name(int scope)
{
	return scope >= 0 && (size_t)scope < TB_ARRAY_SIZE(scopes) ? scopes[scope] : "system";
}

int tb_hook_scope_parse(const char *s)
{
	return parse(scopes, TB_ARRAY_SIZE(scopes), s);
}

bool tb_hooks_own_site(const char *name)
{
	static const char *const fn[] = {TB_EV_UPROBE, TB_EV_URETPROBE};
	static const char *const prov[] = {TB_EV_USDT, TB_EV_LTTNG};

	for (size_t i = 0; i < TB_ARRAY_SIZE(fn); i++)
		if (!strncmp(name, fn[i], strlen(fn[i])) &&
		    !strncmp(name + strlen(fn[i]), TB_EV_OWN_FUNC_PREFIX,
			     strlen(TB_EV_OWN_FUNC_PREFIX)))
			return true;
	for (size_t i = 0; i < TB_ARRAY_SIZE(prov); i++)
		if (!strncmp(name, prov[i], strlen(prov[i])) &&
		    !strncmp(name + strlen(prov[i]), TB_EV_OWN_PROVIDER ":",
			     strlen(TB_EV_OWN_PROVIDER ":")))
			return true;
	return false;
}
