# timeline: ns/op of every sample in run order, per cell, one panel per workload: shows drift,
# warm-up effects and how baseline and traced runs were interleaved. Warm-up samples (not used
# in the statistics) are circled.
# Variables: datafile (one block per cell: order, ns/op, warmup), nw, t<i>, b<i>/e<i>,
# ncol, xmax (last sample position + 1), c<k> (cell titles), s<k> (cell style), plus those of common.gp.
load plotsdir.'/common.gp'
set multiplot layout (nw + ncol - 1) / ncol, ncol title title font ',14'
set xlabel 'sample (position in the whole run)'
set ylabel 'time per operation (ns)'
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
set xrange [-1:xmax]
set key outside right top vertical
do for [i=0:nw-1] {
	set title value(sprintf('t%d', i))
	plot for [k=value(sprintf('b%d', i)):value(sprintf('e%d', i))] datafile index k \
		using 1:2 with linespoints lt value(sprintf('s%d', k)) lw 1 ps 0.9 \
		title value(sprintf('c%d', k)), \
	     for [k=value(sprintf('b%d', i)):value(sprintf('e%d', i))] datafile index k \
		using 1:($3 == 1 ? $2 : NaN) with points pt 6 ps 2.2 lw 1.5 lc rgb '#000000' \
		title (k == value(sprintf('b%d', i)) && value(sprintf('nwarm%d', i)) > 0 ? \
		'warm-up (not used)' : '')
}
unset multiplot
