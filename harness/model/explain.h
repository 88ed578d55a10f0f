/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A traced cell's explanation in the result: where its overhead lands (explain/, `run
 * --explain`). [explain] object of a cell, JSON key of each field in [brackets]; unknown
 * numbers are NAN in memory and null in JSON. explain.c writes it and reads it back by one
 * field table, through the engine of the rest of result.json (model/json-fields.h: types,
 * ranges, sizes; errors name the key).
 */
#ifndef TB_RESULT_EXPLAIN_H
#define TB_RESULT_EXPLAIN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* The files of a cell's explanation, in its [dir] ([files] names them too). */
#define TB_EXPLAIN_BASE	      "base.folded"   /* the baseline's folded stacks */
#define TB_EXPLAIN_TRACED     "traced.folded" /* the traced cell's */
#define TB_EXPLAIN_DIFF	      "diff.folded"   /* "stack base traced" */
#define TB_EXPLAIN_DIFF_SVG   "diff.svg"      /* the differential flame graph */
#define TB_EXPLAIN_TRACED_SVG "traced.svg"    /* the traced profile's flame graph */

#define TB_EXPLAIN_MAX_FNS    256 /* [functions] rows kept */
#define TB_EXPLAIN_MAX_LIMITS 64  /* [limits] entries */

/* One side's profile: the baseline's or the traced cell's explain samples. */
struct tb_cell_explain_side {
	unsigned int runs;    /* [runs] profiled workload samples */
	uint64_t ops;	      /* [ops] operations in them (all threads) */
	uint64_t samples;     /* [samples] cpu-clock samples of the workload's processes */
	uint64_t kernel;      /* [kernel_samples] of those in kernel mode */
	uint64_t lost;	      /* [lost] samples the kernel dropped */
	uint64_t truncated;   /* [truncated] chains cut at perf_event_max_stack */
	uint64_t other;	      /* [other_samples] of other tasks on the workload's CPUs (left out) */
	double ns_per_op;     /* [ns_per_op] median ns/op of the runs (the profiler on) */
	double cpu_ns_per_op; /* [profile_ns_per_op] samples x period / ops */
};

/* A function's time per op on both sides (ns per op); added = traced - base. */
struct tb_cell_explain_fn {
	char *name;		       /* [name] */
	bool kernel;		       /* [where] "kernel" or "user" */
	double self_base, self_traced; /* [self_ns_per_op] [base, traced] */
	double incl_base, incl_traced; /* [inclusive_ns_per_op] [base, traced] */
	double self_share, incl_share; /* [self_share] [inclusive_share]: added / overhead */
};

struct tb_cell_explain {
	char *dir;	     /* [dir] the cell's files, relative to the result's directory */
	char *error;	     /* [error] why there is no explanation (profiler refused, ...) */
	double period_ns;    /* [period_ns] cpu-clock sample period */
	double frequency_hz; /* [frequency_hz] 1e9 / period */
	double per_ops;	     /* [per_ops] folded counts are samples per this many operations */
	struct tb_cell_explain_side base, traced; /* [base] [traced] */
	double added_ns;		  /* [added_ns_per_op] traced - base profile time per op */
	double added_se_ns;		  /* [added_se_ns_per_op] its sampling error (Poisson) */
	double overhead_ns;		  /* [overhead_ns_per_op] the measured rounds' overhead */
	double profiled_overhead_ns;	  /* [profiled_overhead_ns_per_op] of the explain samples */
	double share, share_lo, share_hi; /* [explained_share] [explained_share_range] */
	double tolerance;		  /* [tolerance] of the share check, a fraction */
	bool explained;			  /* [explained] the share is within the tolerance */
	bool attributable; /* [attributable] enough samples and a difference above noise */
	char *statement;   /* [statement] the share check in words */
	json_t *limits;	   /* [limits] array of strings: what limited the profile */
	struct tb_cell_explain_fn *fns; /* [functions] by added self time, largest first */
	size_t nfns;
};

/* A new explanation (NANs, an empty limits array), or NULL on ENOMEM. */
struct tb_cell_explain *tb_cell_explain_new(void);
void tb_cell_explain_free(struct tb_cell_explain *e);
/* Append a limit ("kallsyms hidden: ..."), printf-style. Returns 0 or -ENOMEM. */
int tb_cell_explain_limit(struct tb_cell_explain *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append a function row (name copied). NULL on ENOMEM or when the table is full. */
struct tb_cell_explain_fn *tb_cell_explain_add_fn(struct tb_cell_explain *e, const char *name);

/* The [explain] object (new reference, NULL on ENOMEM). */
json_t *tb_cell_explain_to_json(const struct tb_cell_explain *e);
/*
 * Validate an [explain] object. Returns 0 and *out, -EINVAL with the key that is wrong and why
 * in err ("traced.samples: must be >= 0, found -1"), or -ENOMEM.
 */
int tb_cell_explain_from_json(json_t *o, struct tb_cell_explain **out, char *err, size_t len);
/*
 * Whether dir is what a result may name as a cell's explain directory: "explain/<name>", the
 * name 1-128 bytes of [A-Za-z0-9._+-] and not "." or "..". Files are only ever looked for there.
 */
bool tb_cell_explain_dir_ok(const char *dir);

#endif /* TB_RESULT_EXPLAIN_H */
