/* SPDX-License-Identifier: GPL-2.0 */
/* samples.csv: one row per sample of a result, for spreadsheets and scripts. */
#ifndef TB_CSV_H
#define TB_CSV_H

#include "core/outdir.h"
#include "model/result.h"

/* Write samples.csv into dir atomically (core/outdir.h). Returns 0 or -errno (said). */
int tb_csv_write(const struct tb_result *r, const struct tb_dir *dir);

#endif /* TB_CSV_H */
