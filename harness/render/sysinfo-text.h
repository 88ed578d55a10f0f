/* SPDX-License-Identifier: GPL-2.0 */
/* The environment fingerprint (host/sysinfo.h) as readable text: `tracebench sysinfo`. */
#ifndef TB_SYSINFO_TEXT_H
#define TB_SYSINFO_TEXT_H

#include <jansson.h>
#include <stdio.h>

/*
 * Write the readable summary of info (from tb_sysinfo_collect; borrowed) to f: grouped,
 * aligned "key value" lines, "unknown" for what info lacks (an empty object prints too).
 */
void tb_render_sysinfo_print(FILE *f, const json_t *info);

#endif /* TB_SYSINFO_TEXT_H */
