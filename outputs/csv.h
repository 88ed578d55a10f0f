/* SPDX-License-Identifier: GPL-2.0 */
/* samples.csv: one row per sample of a result, for spreadsheets and scripts. */
#ifndef TB_CSV_H
#define TB_CSV_H

#include "result/result.h"

/* Write dir/samples.csv atomically. Returns 0 or -errno (nothing printed). */
int tb_csv_write(const struct tb_result *r, const char *dir);

#endif /* TB_CSV_H */
