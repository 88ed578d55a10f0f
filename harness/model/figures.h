/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The documented figures against this machine. doc/figures.json (tools/figures.py writes it;
 * README.md, METHODOLOGY.md and the doc/ pages quote it) says per section which scenarios measured
 * its figures and on what machine; a run of such a scenario on another machine says, in one
 * line, which documented figures therefore do not apply here.
 */
#ifndef TB_FIGURES_H
#define TB_FIGURES_H

#include <jansson.h>
#include <stddef.h>

/*
 * What differs between a documented machine (a section's `machine` object: cpu.vendor,
 * cpu.model, cpu.family, cpu.model_number, kernel, hardware_class) and system (sysinfo's
 * object), as "CPU family 25, here 6; kernel 6.1.0, here 6.18.44" into what. A field the
 * document does not know (null or absent) is not compared; a documented kernel "6.18" matches
 * "6.18.44-x" (the documents often give the release only). Returns 1 when something differs,
 * 0 when nothing known does, -EINVAL when documented is not an object.
 */
int tb_figures_machine_diff(const json_t *documented, const json_t *system, char *what, size_t len);

/*
 * The note for a run of scenario (a path) on system: the figures file of the source tree the
 * scenario lies in (DIR/doc/figures.json for the nearest of its parent directories DIR that has
 * one) documents the scenario in sections measured on another machine. *note is a new line
 * naming the sections, their figures and what differs, or NULL when there is nothing to say (no
 * figures file, the scenario undocumented, the same machine). Returns 0, -ENOMEM, or -EINVAL
 * for a figures file that cannot be read as one (a warning names the file and the key).
 */
int tb_figures_note(const char *scenario, const json_t *system, char **note);

#endif /* TB_FIGURES_H */
