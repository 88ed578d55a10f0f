# ns-per-event: what one traced event costs the workload, per (workload, tracer): the added
# ns/op divided by events/op, with its CI (the figure comparable across tracers), and beside
# it, where the tracer runs BPF programs, the kernel's own run_time_ns / run_cnt.
# Variables: datafile (one row per cell), bpffile (the rows with a BPF figure), n (rows),
# x0 (where bars start), xmin, xmax, logx, nbpf (rows in bpffile), plus those of common.gp.
# No coordinate in either file is NaN: gnuplot 5.4.4 segfaults on a `with labels` clause whose
# every row has a NaN x, so the BPF clauses are plotted only when bpffile has rows.
load plotsdir.'/common.gp'
set title title font ',14'
set xlabel 'cost per traced event (ns)'
set yrange [n - 0.5:-0.5]
if (logx) {
	set logscale x 10
	set xlabel 'cost per traced event (ns, log scale)'
	set format x '%.0s%c'
}
set xrange [xmin:xmax]
set ytics scale 0
set grid xtics noytics
# The key goes under the x label, in space reserved for it, clear of bars and labels.
set bmargin 7
set key at screen 0.5, screen 0.01 center bottom horizontal maxrows 2 width 1
half = (nbpf > 0 ? 0.19 : 0)
if (nbpf > 0) {
	plot datafile using (x0):1:(x0):5:($1-0.38):($1) with boxxyerror \
			fs solid 0.8 border lc rgb '#0072B2' lc rgb '#0072B2' \
			title 'added ns/op / events per op (error bars: CI)', \
	     '' using 5:($1-half):6:7 with xerrorbars pt 7 ps 0.4 lw 1.5 dt 1 \
			lc rgb '#000000' notitle, \
	     bpffile using (x0):1:(x0):2:($1):($1+0.38) with boxxyerror \
			fs pattern 5 border lc rgb '#E69F00' lc rgb '#E69F00' \
			title 'BPF program run time per run (kernel stats)', \
	     datafile using 9:($1-half):8:ytic(4) with labels left offset 0.8,0 \
			font ',10' notitle, \
	     bpffile using 4:($1+half):3 with labels left offset 0.8,0 font ',10' notitle
} else {
	plot datafile using (x0):1:(x0):5:($1-0.38):($1+0.38) with boxxyerror \
			fs solid 0.8 border lc rgb '#0072B2' lc rgb '#0072B2' \
			title 'added ns/op / events per op (error bars: CI)', \
	     '' using 5:1:6:7 with xerrorbars pt 7 ps 0.4 lw 1.5 dt 1 \
			lc rgb '#000000' notitle, \
	     '' using 9:1:8:ytic(4) with labels left offset 0.8,0 font ',10' notitle
}
