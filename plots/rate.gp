# rate: overhead against event rate for the cells of a rate sweep, per tracer, with the CI as
# error bars and the least-squares line (overhead % = a + b * rate) through them.
# Variables: datafile (one block per tracer: rate, pct, lo, hi), fitfile (fitted line, same
# nf blocks, only tracers with >= 2 rates), ng, g<k> (key titles), nf, f<k> (fit titles),
# fl<k> (the fit's line type), logx, xmin, xmax,
# plus those of common.gp.
load plotsdir.'/common.gp'
set title title font ',14'
# A linear axis in thousands of events/s reads better than 1.2M rounded to "1M".
if (logx) {
	set logscale x 10
	set xlabel 'events per second (achieved; log scale)'
	set format x '%.0s%c'
	xs = 1.0
} else {
	set xlabel 'thousand events per second (achieved)'
	xs = 1000.0
}
set ylabel 'overhead vs baseline (%)'
set key top left opaque box
set xrange [xmin / xs:xmax / xs]
set arrow from graph 0, first 0 to graph 1, first 0 nohead lc rgb '#000000'
if (nf > 0) {
	plot for [k=0:ng-1] datafile index k using ($1 / xs):2:3:4 with yerrorbars lt k+2 dt 1 lw 1.5 ps 1.3 \
		title value(sprintf('g%d', k)), \
	     for [k=0:nf-1] fitfile index k using ($1 / xs):2 with lines lt value(sprintf('fl%d', k)) \
		lw 2 title value(sprintf('f%d', k))
} else {
	plot for [k=0:ng-1] datafile index k using ($1 / xs):2:3:4 with yerrorbars lt k+2 dt 1 lw 1.5 ps 1.3 \
		title value(sprintf('g%d', k))
}
