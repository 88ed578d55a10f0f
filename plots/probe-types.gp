# probe-types: every tracer of the result ranked by what one event costs the workload (the
# rate model's cost per event where a sweep fitted one, else the cell's ns/event), cheapest at
# the top, with its CI; beside each the published figures for the same probe type (diamonds,
# with their source; METHODOLOGY.md section 7).
# Variables: datafile, pubfile (row, ns, text, y), n (rows), npub (published figures), x0 (where bars start),
# xmin, xmax, logx, leftout (the line saying what the ranking left out and why, or ''), plus
# those of common.gp.
load plotsdir.'/common.gp'
set title title font ',14'
xl = 'cost per event (ns)'
set yrange [n - 0.5:-0.5]
if (logx) {
	set logscale x 10
	xl = 'cost per event (ns, log scale)'
	set format x '%.0s%c'
}
# What the ranking left out, under the axis: its head, then one line per reason; the bottom
# margin grows by a line for each.
lines = 0
if (strlen(leftout) > 0) {
	k = strstrt(leftout, ': ')
	xl = xl."\n".leftout[1:k]
	s = leftout[k + 2:]
	lines = 2
	while (strstrt(s, '; ') > 0) {
		k = strstrt(s, '; ')
		xl = xl."\n".s[1:k - 1]
		s = s[k + 2:]
		lines = lines + 1
	}
	xl = xl."\n".s
}
set xlabel xl
set bmargin 7 + lines
set xrange [xmin:xmax]
set ytics scale 0
set grid xtics noytics
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
