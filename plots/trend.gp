# trend: one history series, oldest run first. Points: each run's value (median or the result's
# estimate) with its CI as an error bar; thick steps: the median of each segment between change
# points; dashed vertical lines: the change points, each labelled with its size and run.
# Variables: datafile (block 0: run, value, ci_lo, ci_hi; block 1: steps), title, xlabel,
# ylabel, xmax (runs), ymin, ymax, ncp, cpx<i> (x of change i), cpl<i> (its label), plus those
# of common.gp.
load plotsdir.'/common.gp'
set title title font ',13'
set xlabel xlabel
set ylabel ylabel
set xrange [0.5:xmax + 0.5]
pad = (ymax > ymin) ? 0.08 * (ymax - ymin) : (ymax != 0 ? 0.05 * abs(ymax) : 1)
set yrange [ymin - pad:ymax + 4 * pad]
set key outside below horizontal
if (xmax <= 30) { set xtics 1 } else { set xtics autofreq }
do for [i=0:ncp-1] {
	x = value(sprintf('cpx%d', i))
	set arrow from x, graph 0 to x, graph 1 nohead dt 2 lw 1.5 lc rgb c_over front
	set label value(sprintf('cpl%d', i)) at x, graph 0.98 right rotate by 90 offset -1.2, 0 \
		font ',9' tc rgb c_over front
}
plot datafile index 0 using 1:2:3:4 with yerrorbars lt 2 dt 1 pt 7 ps 0.7 lw 1 \
		title 'run (with its CI)', \
     '' index 1 using 1:2 with lines lt 1 lw 3 title 'segment median', \
     keyentry with lines dt 2 lw 1.5 lc rgb c_over \
		title (ncp > 0 ? sprintf('change point (%d)', ncp) : 'no change point')
