/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One table of fields per object of result.json drives both its writer and its strict reader,
 * so that a key is declared once (model/json-result.c: the result; model/explain.c: a cell's
 * explain object). A row names the key, where its value is in the struct the table describes
 * (offsetof), its kind and what the reader accepts; the reader refuses the rest, naming the key
 * path ("cells[2].samples[0].ns_per_op: must be >= 0, found -1"). The conventions are the
 * result's (result.h): an unknown number (NAN) is null, an unknown count (-1) is null, an absent
 * string (NULL) is null; every string read keeps no control character (written out as text,
 * "\x1b", core/utf8.h). Rows are written in table order; unknown keys are ignored by the reader,
 * absent ones leave the struct's value (its default) as it is.
 */
#ifndef TB_JSON_FIELDS_H
#define TB_JSON_FIELDS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a row's value is, in the struct and in JSON. */
enum tb_json_kind {
	/* char *: a copy; REQ: a non-empty string */
	TB_JSON_STR,
	/* char[size] in the struct: a longer string is refused (CUT: cut) */
	TB_JSON_TEXT,
	/* double in [min, max]; null: NAN */
	TB_JSON_NUM,
	/* int64_t >= 0; null or -1: -1 (unknown) */
	TB_JSON_COUNT,
	/* unsigned of size bytes (1, 4, 8) in [umin, umax]; also a decimal string, what the
	 * writer makes of one above INT64_MAX */
	TB_JSON_UINT,
	/* bool */
	TB_JSON_BOOL,
	/* doubles at off and off2 as [a, b], each in [min, max] or null; a <= b (ANY_ORDER: any) */
	TB_JSON_PAIR,
	/* an int-sized enum as its name (names) */
	TB_JSON_ENUM,
	/* json_t *: an object kept as is, or NULL (null) */
	TB_JSON_OBJ,
	/* json_t *: an array of at most umax strings of at most len bytes (0: any); NULL is [] */
	TB_JSON_STRINGS,
	/* the struct at off, described by the table sub */
	TB_JSON_CHILD,
	/* an array of structs (arr) */
	TB_JSON_ARRAY,
	/* only callbacks (io): what no kind says */
	TB_JSON_CUSTOM,
};

/* Flags of a row. */
enum {
	/* read: the key must be present */
	TB_JSON_REQ = 1 << 0,
	/* written only when true, not "", -1, NAN, NULL or empty */
	TB_JSON_OMIT = 1 << 1,
	/* written, never read (a copy, a derived figure) */
	TB_JSON_OUT = 1 << 2,
	/* STR: newlines and tabs are kept (STRINGS always keep them) */
	TB_JSON_LINES = 1 << 3,
	/* TEXT: a longer string is cut to the buffer, not refused */
	TB_JSON_CUT = 1 << 4,
	/* PAIR: a > b is fine ([base, traced]) */
	TB_JSON_ANY_ORDER = 1 << 5,
	/* NUM: min and max excluded, null refused (alpha) */
	TB_JSON_OPEN = 1 << 6,
	/* CHILD: off2 is a bool of the parent: written only when true, set when the key was read */
	TB_JSON_SEEN = 1 << 7,
	/* CHILD: null when when() says no, rather than left out */
	TB_JSON_NULL = 1 << 8,
};

struct tb_json_reader;
struct tb_json_field;

/* A struct's fields, and what reading one of its objects needs besides them. */
struct tb_json_table {
	const struct tb_json_field *fields; /* ends with a NULL key */
	/* Before reading into base: its defaults (NULL: base is already initialised). */
	void (*init)(void *base);
	/* After reading o into base: checks across fields, defaults for what o left out.
	 * Returns 0, or -EINVAL said with tb_json_bad(), or -ENOMEM. NULL: none. */
	int (*check)(struct tb_json_reader *rd, json_t *o, void *base);
};

/* An array of structs: at off of the parent a pointer to them, or the elements themselves. */
struct tb_json_array {
	const struct tb_json_table *elem;
	size_t size;   /* of an element */
	size_t count;  /* offset of the parent's size_t count of elements */
	size_t max;    /* elements read at most */
	bool in_place; /* the parent holds the elements (a fixed array member at off) */
	/* A new element at the end, initialised; NULL on ENOMEM. NULL for in_place arrays (the
	 * next one, zeroed, then elem->init). */
	void *(*add)(void *parent);
	/* After element i was read: checks against the others. NULL: none. */
	int (*check)(struct tb_json_reader *rd, void *parent, size_t i);
};

/* An enum's names: name(v) never NULL; parse(name) is the value or < 0 when unknown. */
struct tb_json_enum {
	const char *what; /* in messages: "unknown verdict \"meh\"" */
	const char *(*name)(int v);
	int (*parse)(const char *name);
};

/* Callbacks of a row, in place of its kind's writer or reader (NULL: the kind's; for CUSTOM
 * rows, not written or not read). */
struct tb_json_custom {
	/* Set f->key in o from base, or leave it out. 0 or -ENOMEM. */
	int (*write)(json_t *o, const struct tb_json_field *f, const void *base);
	/* v (NULL when the key is absent, unless the row is REQ) into base. 0, -EINVAL said with
	 * tb_json_bad(), or -ENOMEM. */
	int (*read)(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
		    void *base);
};

struct tb_json_field {
	const char *key; /* NULL ends a table */
	enum tb_json_kind kind;
	unsigned int flags;  /* TB_JSON_REQ, ... */
	size_t off;	     /* of the value in the struct the table describes */
	size_t size;	     /* of the value (UINT, ENUM: the integer's; TEXT: the buffer's) */
	size_t off2;	     /* PAIR: the second double; CHILD with SEEN: the bool */
	size_t len;	     /* STR, STRINGS: the longest string read, in bytes (0: any) */
	double min, max;     /* NUM, PAIR */
	uint64_t umin, umax; /* UINT; STRINGS: umax entries at most */
	bool (*when)(const void *base);	  /* written only when true (NULL: always) */
	const struct tb_json_table *sub;  /* CHILD */
	const struct tb_json_array *arr;  /* ARRAY */
	const struct tb_json_enum *names; /* ENUM */
	const struct tb_json_custom *io;  /* CUSTOM; any row: its own writer or reader */
};

/* Where member m of struct type T is, for a row: .off and .size. */
#define TB_JSON_AT(T, m) .off = offsetof(T, m), .size = sizeof(((T *)0)->m)

/* A read in progress: the key path of the object being read and the first failure. */
struct tb_json_reader {
	char path[192]; /* "cells[2].samples[0]"; "" at the top */
	char err[768];	/* "cells[2].samples[0].ns_per_op: must be >= 0, found -1" */
};

/* The object of table t from base: a new reference, or NULL on ENOMEM. */
json_t *tb_json_write(const struct tb_json_table *t, const void *base);
/* Set key in o to v (taken, even on failure); -ENOMEM when v is NULL or it cannot be set. */
int tb_json_set(json_t *o, const char *key, json_t *v);

/*
 * Read the object o into base by table t (t->init first, t->check last), at the reader's path.
 * Returns 0, -EINVAL with rd->err naming the key and why (o not an object: the path alone), or
 * -ENOMEM.
 */
int tb_json_read(struct tb_json_reader *rd, json_t *o, const struct tb_json_table *t, void *base);
/* One row's value v (NULL: the key is absent) into base, as tb_json_read() reads it. */
int tb_json_read_field(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
		       void *base);
/* Record a failure at the current path (key: of its member; NULL: the object itself), printf
 * style. Returns -EINVAL. */
int tb_json_bad(struct tb_json_reader *rd, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Enter a member of the current object (key, or key[i] when i >= 0) / leave it: push returns
 * what pop takes. */
size_t tb_json_push(struct tb_json_reader *rd, const char *key, long i);
void tb_json_pop(struct tb_json_reader *rd, size_t old);
/* Whether v, the member key of the current object, is an array of at most max elements.
 * Returns 0, or -EINVAL said. */
int tb_json_array_ok(struct tb_json_reader *rd, json_t *v, const char *key, size_t max);
/* Escape the control characters of every string in the tree j in place (multiline: keep
 * newlines and tabs); an object key with one is refused, naming key. 0, -EINVAL or -ENOMEM. */
int tb_json_clean(struct tb_json_reader *rd, const char *key, json_t *j, bool multiline);

#endif /* TB_JSON_FIELDS_H */
