# compare: overhead per (workload, tracer) side by side for each result set (e.g. two
# kernels), with CIs. Each set has its own colour and fill pattern, and each bar its value.
# Variables: datafile (one block per set: row, pct, lo, hi, text, text x), rowfile (row, label),
# n (rows), ns (sets), l<k> (set names), xmin, xmax, conf, plus those of common.gp.
load plotsdir.'/common.gp'
set title title font ',14'
set xlabel sprintf('overhead vs baseline (%%; error bars: %g%% CI)', conf)
set yrange [n - 0.5:-0.5]
set xrange [xmin:xmax]
set ytics scale 0
set grid xtics noytics
# The key goes under the x label, in space reserved for it.
set bmargin 7
set key at screen 0.5, screen 0.01 center bottom horizontal width 1
set arrow from 0, graph 0 to 0, graph 1 nohead lc rgb '#000000'
bh = 0.8 / ns
off(k) = -0.4 + bh * (k + 0.5)
plot for [k=0:ns-1] datafile index k \
		using (0):($1 + off(k)):(0):2:($1 + off(k) - bh*0.45):($1 + off(k) + bh*0.45) \
		with boxxyerror fs pattern (k % 2 == 0 ? 3 : 4 + k) lt k+2 dt 1 lw 1 title value(sprintf('l%d', k)), \
     for [k=0:ns-1] datafile index k using 2:($1 + off(k)):3:4 with xerrorbars pt 7 ps 0.3 \
		lw 1.5 dt 1 lc rgb '#000000' notitle, \
     for [k=0:ns-1] datafile index k using 6:($1 + off(k)):5 with labels left offset 0.8,0 \
		font ',9' notitle, \
     rowfile using (xmin):1:ytic(2) with points ps 0 notitle
