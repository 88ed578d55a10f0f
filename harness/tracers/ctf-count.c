// SPDX-License-Identifier: GPL-2.0
/*
 * The events of CTF traces on disk, counted with libbabeltrace2 (ctf-count.h): one src.ctf.fs
 * component per trace and a simple sink per output port (counting needs no time order, so no
 * muxer), the graph run to its end.
 */
#include <babeltrace2/babeltrace.h>
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "tracers/ctf-count.h"

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
								  void *data)
{
	struct tb_ctf_counts *c = data;
	bt_message_array_const msgs;
	uint64_t n, i, k;

	switch (bt_message_iterator_next(it, &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (i = 0; i < n; i++) {
		switch (bt_message_get_type(msgs[i])) {
		case BT_MESSAGE_TYPE_EVENT:
			c->events++;
			break;
		case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
			if (bt_message_discarded_events_get_count(msgs[i], &k) ==
			    BT_PROPERTY_AVAILABILITY_AVAILABLE)
				c->discarded += (int64_t)k;
			break;
		default:
			break;
		}
		bt_message_put_ref(msgs[i]);
	}
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* The traces nftw found: directories holding a `metadata` file. */
static char (*found)[PATH_MAX];
static size_t nfound;

static int visit(const char *path, const struct stat *st, int type, struct FTW *f)
{
	char copy[PATH_MAX];

	if (type != FTW_F || strcmp(path + f->base, "metadata") || nfound >= TB_CTF_MAX_TRACES)
		return 0;
	snprintf(copy, sizeof(copy), "%s", path);
	snprintf(found[nfound++], PATH_MAX, "%s", dirname(copy));
	return 0;
}

int tb_ctf_find(const char *dir, char (**paths)[PATH_MAX], size_t *n, char *err, size_t len)
{
	int ret = 0;

	*paths = NULL;
	*n = 0;
	found = calloc(TB_CTF_MAX_TRACES, sizeof(*found));
	if (!found)
		return -ENOMEM;
	nfound = 0;
	if (nftw(dir, visit, 16, FTW_PHYS)) {
		ret = -errno;
		snprintf(err, len, "cannot walk %s: %s", dir, strerror(errno));
	} else if (!nfound) {
		ret = -ENOENT;
		snprintf(err, len, "no CTF trace (metadata file) below %s", dir);
	}
	if (ret) {
		free(found);
	} else {
		*paths = found;
		*n = nfound;
	}
	found = NULL;
	return ret;
}

/* One source for the trace at path, and a counting sink on each of its output ports. */
static int add_trace(bt_graph *g, const bt_component_class_source *cls, const char *path,
		     size_t idx, struct tb_ctf_counts *c)
{
	const bt_component_source *src;
	const bt_component_sink *sink;
	bt_value *params = bt_value_map_create(), *inputs = NULL;
	char name[64];
	uint64_t i, n;
	int ret = -ENOMEM;

	if (!params || bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, path))
		goto out;
	snprintf(name, sizeof(name), "src%zu", idx);
	ret = -EINVAL;
	if (bt_graph_add_source_component(g, cls, name, params, BT_LOGGING_LEVEL_WARNING, &src))
		goto out;
	n = bt_component_source_get_output_port_count(src);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "sink%zu.%llu", idx, (unsigned long long)i);
		if (bt_graph_add_simple_sink_component(g, name, NULL, consume, NULL, c, &sink) ||
		    bt_graph_connect_ports(
			    g, bt_component_source_borrow_output_port_by_index_const(src, i),
			    bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL))
			goto out;
	}
	ret = 0;
out:
	bt_value_put_ref(params);
	return ret;
}

int tb_ctf_count(const char *dir, struct tb_ctf_counts *out, char *err, size_t len)
{
	const bt_component_class_source *cls;
	const bt_plugin *plugin = NULL;
	char(*traces)[PATH_MAX] = NULL;
	bt_graph *g = NULL;
	bt_graph_run_status st;
	size_t i, n;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = tb_ctf_find(dir, &traces, &n, err, len);
	if (ret)
		return ret;
	ret = -ENOENT;
	snprintf(err, len, "babeltrace2's ctf plugin (src.ctf.fs) is not installed");
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &plugin) ||
	    !(cls = bt_plugin_borrow_source_component_class_by_name_const(plugin, "fs")))
		goto out;
	ret = -ENOMEM;
	g = bt_graph_create(0);
	for (i = 0; g && i < n; i++) {
		ret = add_trace(g, cls, traces[i], i, out);
		if (ret) {
			snprintf(err, len, "cannot read the CTF trace %s", traces[i]);
			goto out;
		}
	}
	do
		st = bt_graph_run(g);
	while (st == BT_GRAPH_RUN_STATUS_AGAIN);
	ret = st == BT_GRAPH_RUN_STATUS_OK ? 0 : -EIO;
	if (ret)
		snprintf(err, len, "reading the CTF traces below %s failed", dir);
	out->traces = (int64_t)n;
out:
	bt_graph_put_ref(g);
	bt_plugin_put_ref(plugin);
	free(traces);
	return ret;
}
