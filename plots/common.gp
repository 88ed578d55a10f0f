# Shared setup, loaded first by every tracebench plot script.
# The harness passes (gnuplot -e): fmt ('png' or 'svg'), outfile, w, h (pixels), title, host.
# Colours are the Okabe-Ito palette (distinguishable with colour-blindness and in grey print);
# every series also differs in point type and dash type so a plot reads without colour.
# Unknown values are written as NaN: such points are skipped (no "missing" setting, which
# would make gnuplot warn about series that are empty by design).
if (!exists("fmt")) fmt = 'png'
if (!exists("w")) w = 1000
if (!exists("h")) h = 600
if (fmt eq 'svg') {
	set terminal svg size w,h dynamic font 'DejaVu Sans,11' fontscale 1.33 background '#ffffff'
} else {
	set terminal pngcairo size w,h font 'DejaVu Sans,11' background '#ffffff'
}
set output outfile
# Names come from scenarios: no enhanced-text markup (underscores would become subscripts).
set termoption noenhanced
set encoding utf8
set datafile separator "\t"
set border 3 lw 1
set tics nomirror out
set grid lc rgb '#e0e0e0' lw 1
set key noautotitle
# Series styles: baseline black, then tracers; each with its own point and dash type.
set linetype 1 lc rgb '#000000' lw 2 pt 7 ps 1.0 dt 1
set linetype 2 lc rgb '#0072B2' lw 2 pt 5 ps 1.0 dt 2
set linetype 3 lc rgb '#D55E00' lw 2 pt 9 ps 1.2 dt (10,3,2,3)
set linetype 4 lc rgb '#009E73' lw 2 pt 13 ps 1.2 dt (4,3)
set linetype 5 lc rgb '#CC79A7' lw 2 pt 11 ps 1.2 dt 5
set linetype 6 lc rgb '#E69F00' lw 2 pt 3 ps 1.0 dt (12,4,2,4)
set linetype 7 lc rgb '#56B4E9' lw 2 pt 1 ps 1.2 dt (2,6)
set linetype 8 lc rgb '#444444' lw 2 pt 2 ps 1.2 dt (16,6)
set linetype cycle 8
# Verdict colours: overhead, no detectable overhead, untrustworthy (fill patterns in scripts).
c_over = '#D55E00'
c_none = '#009E73'
c_untr = '#777777'
