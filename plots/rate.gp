# rate: what a traced op costs against the traced events per op, for the cells of a rate sweep,
# per tracer, with the CI as error bars and the line of the result's rate model (overhead ns/op
# = fixed_ns + cost_ns x events/op: the figures the terminal prints, in its key).
# Variables: datafile (one block per tracer: events/op, ns/op, lo, hi), fitfile (the models'
# lines, nf blocks, only accepted models), ng, g<k> (key titles), nf, f<k> (fit titles),
# fl<k> (the fit's line type), logx, xmin, xmax, optional xname (the x axis's label: a
# sweep's key, render/gnuplot/sweep.c draws its sweep-<k> plots with this script), optional
# yname (the y axis's label: the saturation plot's lost share), plus those of common.gp.
load plotsdir.'/common.gp'
set title title font ',14'
if (logx) {
	set logscale x 10
	set xlabel 'traced events per op (log scale)'
} else {
	set xlabel 'traced events per op'
}
if (exists('xname')) {
	set xlabel xname
}
xs = 1.0
set ylabel 'overhead vs baseline (ns per op)'
if (exists('yname')) {
	set ylabel yname
}
# The key under the axis, one line an entry in its series' colour, the image taller by 20 px an
# entry (rate.c): it can never cover a point or a line. Labels, not gnuplot's key, which drops
# the entries past what it thinks fit (15 here) and the models' titles are long.
set bmargin at screen (70.0 + 20 * (ng + nf)) / h
unset key
row = 0
do for [k=nf-1:0:-1] {
	set label 1000 + row value(sprintf('f%d', k)) at screen 0.06, screen (14.0 + 20 * row) / h \
		left tc lt value(sprintf('fl%d', k))
	row = row + 1
}
do for [k=ng-1:0:-1] {
	set label 1000 + row '* '.value(sprintf('g%d', k)).': measured, 95% CI' \
		at screen 0.06, screen (14.0 + 20 * row) / h left tc lt k + 2
	row = row + 1
}
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
