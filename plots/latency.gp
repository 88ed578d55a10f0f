# latency: per workload, the distribution of per-operation latency of latency-mode cells as a
# cumulative curve, baseline against each tracer. x: latency (log scale); y: cumulative
# fraction, stretched towards the tail (y = -log10(1 - F)) so p99 and p99.9 stay readable.
# Points mark each cell's p50, p99 and p99.9 (their values are in the key).
# Variables: datafile (CDF points, one block per cell), markfile (p50/p99/p99.9, same blocks),
# nw, t<i> (panel titles), b<i>/e<i> (first/last block of panel i), c<k> (cell k's key title),
# s<k> (cell k's style, 1 = baseline), ymax, plus those of common.gp.
load plotsdir.'/common.gp'
set multiplot layout nw,1 title title font ',14'
set logscale x 10
set format x '%.0s%c'
set xlabel 'latency per operation (ns, log scale)'
set ylabel 'operations at or below (cumulative)'
set yrange [0:ymax]
set ytics ('0%%' 0, '50%%' 0.30103, '90%%' 1, '99%%' 2, '99.9%%' 3, '99.99%%' 4, '99.999%%' 5)
set grid xtics mxtics ytics
set key top left opaque box
set autoscale xfix
set offsets 0, 0, 0, 0
do for [i=0:nw-1] {
	set title value(sprintf('t%d', i))
	plot for [k=value(sprintf('b%d', i)):value(sprintf('e%d', i))] datafile index k \
		using 1:2 with lines lt value(sprintf('s%d', k)) title value(sprintf('c%d', k)), \
	     for [k=value(sprintf('b%d', i)):value(sprintf('e%d', i))] markfile index k \
		using 1:2 with points lt value(sprintf('s%d', k)) ps 1.8 notitle
}
unset multiplot
