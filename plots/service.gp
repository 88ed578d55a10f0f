# service: for each traced service cell (one row each), left its throughput loss % and right its
# p99 delta (us), each a point with its bootstrap CI as error bars; filled when the metric's
# verdict is overhead. A dashed line at the noise threshold on the loss panel.
# Variables: datafile, n (rows), thr (noise threshold, %), conf (confidence, %), plus those of
# common.gp.
load plotsdir.'/common.gp'
set multiplot layout 1,2 title title font ',14'
set yrange [n - 0.5:-0.5]
set ytics scale 0
set grid xtics noytics
# Zero is always on the axis: a change is read against no change.
set xrange [*<0:thr<*]
set bmargin 5
set xlabel sprintf('throughput loss %% (error bars: %g%% CI)', conf)
set arrow 1 from thr, graph 0 to thr, graph 1 nohead dt 2 lw 1.5 lc rgb '#555555' front
set arrow 3 from 0, graph 0 to 0, graph 1 nohead lw 1 lc rgb '#000000'
plot datafile using 3:1:4:5:ytic(2) with xerrorbars pt 7 ps 1.2 lw 1.5 \
		lc rgb c_over notitle, \
     '' using ((stringcolumn(6) eq 'overhead') ? NaN : $3):1 with points pt 7 ps 1.2 \
		lc rgb c_none notitle
unset arrow 1
set xrange [*<0:0<*]
set ytics format ''
set xlabel sprintf('p99 delta, us (error bars: %g%% CI)', conf)
plot datafile using 7:1:8:9 with xerrorbars pt 5 ps 1.2 lw 1.5 lc rgb c_over notitle, \
     '' using ((stringcolumn(10) eq 'overhead') ? NaN : $7):1 with points pt 5 ps 1.2 \
		lc rgb c_none notitle
unset multiplot
