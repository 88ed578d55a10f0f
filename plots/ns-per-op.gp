# ns-per-op: per workload, the distribution of measured samples (ns/op) for the baseline and
# every tracer, as box plots (box: quartiles, thick bar: median, whiskers: 1.5 IQR) with every
# sample jittered on top. Baseline first. One panel per workload (their scales differ).
# Variables: datafile (boxes, one block per workload), samplefile (samples, same blocks),
# nw (number of workloads), ncol (panel columns), rot (slant the tracer names; the medians'
# labels then stand upright, or neighbours' would overlap), labpx (the pixels the slanted names
# take under a panel), rightpx (and right of its last box), t0..t<nw-1> (panel titles), plus those of common.gp.
load plotsdir.'/common.gp'
# Fixed pixel margins: room for tick labels, panel titles and the one key at the bottom.
set multiplot layout (nw + ncol - 1) / ncol, ncol title title font ',14' \
	margins 100.0/w, 1 - (20.0 + rightpx)/w, (80.0 + labpx)/h, 1 - 75.0/h \
	spacing (110.0 + rightpx)/w, (95.0 + labpx)/h
set ylabel 'time per operation (ns)'
# The legend as one line of text at the bottom (a key per panel would cover the boxes).
unset key
set label 1 'box: quartiles   thick bar: median   whiskers: furthest sample within 1.5 IQR   circles: each measured sample (jittered)' \
	at screen 0.5, screen 0.015 center font ',10'
set yrange [0:*]
set offsets 0.6, 0.6, graph (rot ? 0.3 : 0.12), 0
set xtics scale 0
if (rot) {
	set xtics rotate by -30 left
}
set grid noxtics ytics
set boxwidth 0.5
set style fill solid 0.25 border lc rgb '#333333'
do for [i=0:nw-1] {
	set title value(sprintf('t%d', i))
	if (rot) {
	plot datafile index i using 3:6:10:11:8:xtic(2) with candlesticks whiskerbars 0.6 \
		lc rgb '#0072B2' lw 1.5 dt 1 notitle, \
	     '' index i using 3:7:7:7:7 with candlesticks lc rgb '#000000' lw 3 dt 1 notitle, \
	     samplefile index i using 4:5 with points pt 6 ps 0.7 lc rgb '#D55E00' \
		notitle, \
	     datafile index i using 3:11:12 with labels rotate by 90 left offset 0,0.6 font ',10' \
		notitle
	} else {
	plot datafile index i using 3:6:10:11:8:xtic(2) with candlesticks whiskerbars 0.6 \
		lc rgb '#0072B2' lw 1.5 dt 1 notitle, \
	     '' index i using 3:7:7:7:7 with candlesticks lc rgb '#000000' lw 3 dt 1 notitle, \
	     samplefile index i using 4:5 with points pt 6 ps 0.7 lc rgb '#D55E00' \
		notitle, \
	     datafile index i using 3:11:12 with labels offset 0,1 font ',10' notitle
	}
}
unset multiplot
