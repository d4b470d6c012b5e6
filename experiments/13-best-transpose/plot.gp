# Experiment 13 figure, called by scripts/build-report:
#   gnuplot -e "csv='A.csv'; summary='A-summary.csv'; outdir='DIR'" experiments/13-best-transpose/plot.gp
# writes DIR/13-best-transpose-pct.svg: the library call (gpu/api, gpu/api-inplace) as a
# percentage of memcpy at the same type and shape (the summary's pct-of-gpu/memcpy rows), one
# curve per element type, shapes along x in the order of the list below (the full run's and
# the quick run's shapes); a shape not in the list is not drawn.

# No apostrophes inside blocks that expand @macros: gnuplot's macro scanner takes them for quotes.
if (!exists("summary") || !exists("outdir")) {
  print "plot.gp: pass -e \"summary='...'; outdir='...'\""
  exit status 2
}
name = "13-best-transpose"
shapes = "1000x1000 1024x1024 2048x2048 4099x4099 8191x8191 8192x8192 8200x8200 16384x16384 16384x1024 1024x16384 65536x256 256x65536 12288x8192 16381x1021 1024x256 256x1024"
pos(r, c) = (k = strstrt(" " . shapes . " ", sprintf(" %dx%d ", r, c)), k > 0 ? words(substr(" " . shapes . " ", 1, k)) + 1 : NaN)
types = "uint8 uint16 float double complex128"

set datafile separator comma
set datafile columnheaders
set terminal svg size 980,430 dynamic enhanced font "DejaVu Sans,11"
set output outdir . "/" . name . "-pct.svg"
set multiplot layout 1,2
set yrange [0:115]
set ylabel "% of memcpy (same type, shape, run)"
set grid ytics
set key bottom left font ",9"
set xrange [0.5:words(shapes) + 0.5]
set xtics rotate by -45 font ",8" ()
do for [i = 1:words(shapes)] { set xtics add (word(shapes, i) i) }
sel(subj, t) = strcol("metric") eq "pct-of-gpu/memcpy" && strcol("subject") eq subj && strcol("dtype") eq t
set title "out of place: gpu/api"
plot for [t in types] summary using (sel("gpu/api", t) ? pos(column("rows"), column("cols")) : NaN):(column("value")) \
     with points pointsize 1.2 title t
set title "in place: gpu/api-inplace"
plot for [t in types] summary using (sel("gpu/api-inplace", t) ? pos(column("rows"), column("cols")) : NaN):(column("value")) \
     with points pointsize 1.2 title t
unset multiplot
