# probe-types: every tracer of the result ranked by what one event costs the workload (the
# rate model's cost per event where a sweep fitted one, else the cell's ns/event), cheapest at
# the top, with its CI; beside each the published figures for the same probe type (diamonds,
# with their source; METHODOLOGY.md section 7).
# Variables: datafile, pubfile (row, ns, text, y), n (rows), npub (published figures), x0 (where bars start),
# xmin, xmax, logx, plus those of common.gp.
load plotsdir.'/common.gp'
set title title font ',14'
set xlabel 'cost per event (ns)'
set yrange [n - 0.5:-0.5]
if (logx) {
	set logscale x 10
	set xlabel 'cost per event (ns, log scale)'
	set format x '%.0s%c'
}
set xrange [xmin:xmax]
set ytics scale 0
set grid xtics noytics
set bmargin 7
set key at screen 0.5, screen 0.01 center bottom horizontal maxrows 2 width 1
# Without published figures for any row, their file is empty: plotting it would warn.
if (npub > 0) {
plot datafile using (x0):1:(x0):6:($1-0.42):($1+0.02) with boxxyerror \
		fs solid 0.8 border lc rgb '#0072B2' lc rgb '#0072B2' \
		title 'measured here: ns/event (error bars: 95% CI)', \
     '' using 3:($1-0.2):4:5 with xerrorbars pt 7 ps 0.4 lw 1.5 dt 1 lc rgb '#000000' notitle, \
     '' using 8:($1-0.2):7:ytic(2) with labels left offset 0.8,0 font ',10' notitle, \
     pubfile using 2:4 with points pt 13 ps 1.1 lc rgb '#D55E00' \
		title 'published figure for this probe type (other machine and loop)', \
     '' using 2:4:3 with labels left offset 1.0,0 font ',9' tc rgb '#D55E00' notitle
} else {
plot datafile using (x0):1:(x0):6:($1-0.42):($1+0.02) with boxxyerror \
		fs solid 0.8 border lc rgb '#0072B2' lc rgb '#0072B2' \
		title 'measured here: ns/event (error bars: 95% CI)', \
     '' using 3:($1-0.2):4:5 with xerrorbars pt 7 ps 0.4 lw 1.5 dt 1 lc rgb '#000000' notitle, \
     '' using 8:($1-0.2):7:ytic(2) with labels left offset 0.8,0 font ',10' notitle
}
