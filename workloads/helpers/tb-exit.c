// SPDX-License-Identifier: GPL-2.0
/* The exec workload's target: a static program that exits at once with status 0. */
int main(void)
{
	return 0;
}
