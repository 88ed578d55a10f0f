# overhead: one horizontal bar per (workload, tracer): overhead % of the traced median over the
# baseline median, with its bootstrap CI as error bars, sorted (largest on top). Dashed lines at
# +/- the noise threshold. Bar fill and pattern tell the verdict; the text beside each bar says it.
# Variables: datafile, n (rows), thr (noise threshold, %), xmin, xmax, conf (confidence, %),
# n0/n1/n2 (rows with each verdict), plus those of common.gp.
load plotsdir.'/common.gp'
set title title font ',14'
set xlabel sprintf('overhead vs baseline (%% of baseline median ns/op; error bars: %g%% CI)', conf)
set yrange [n - 0.5:-0.5]
set xrange [xmin:xmax]
set ytics scale 0
set grid xtics noytics
# The key goes under the x label, in space reserved for it, clear of bars and labels.
set bmargin 7
set key at screen 0.5, screen 0.01 center bottom horizontal maxrows 2 width 1
set arrow from thr, graph 0 to thr, graph 1 nohead dt 2 lw 1.5 lc rgb '#555555' front
set arrow from -thr, graph 0 to -thr, graph 1 nohead dt 2 lw 1.5 lc rgb '#555555' front
set arrow from 0, graph 0 to 0, graph 1 nohead lw 1 lc rgb '#000000'
plot datafile using (0):($9==0 ? $1 : NaN):(0):5:($1-0.35):($1+0.35) with boxxyerror \
		fs solid 0.85 border lc rgb c_over lc rgb c_over title (n0 > 0 ? 'overhead' : ''), \
     '' using (0):($9==1 ? $1 : NaN):(0):5:($1-0.35):($1+0.35) with boxxyerror \
		fs pattern 4 border lc rgb c_none lc rgb c_none \
		title (n1 > 0 ? 'no detectable overhead' : ''), \
     '' using (0):($9==2 ? $1 : NaN):(0):5:($1-0.35):($1+0.35) with boxxyerror \
		fs pattern 1 border lc rgb c_untr lc rgb c_untr title (n2 > 0 ? 'untrustworthy' : ''), \
     '' using 5:1:6:7 with xerrorbars pt 7 ps 0.4 lw 1.5 dt 1 lc rgb '#000000' \
		title 'median ratio with CI', \
     '' using 11:1:10:ytic(4) with labels left offset 0.8,0 font ',10' notitle, \
     keyentry with lines dt 2 lw 1.5 lc rgb '#555555' \
		title sprintf('noise threshold +/-%g%%', thr)
