# Experiment 15 figure, called by scripts/build-report:
#   gnuplot -e "csv='A.csv'; summary='A-summary.csv'; outdir='DIR'" experiments/15-distributed-transpose/plot.gp
# writes DIR/15-distributed-transpose.svg: float, the most GPUs of the run: median time of the
# distributed transpose at each chunk count and of the all-to-all of the same blocks against
# the matrix's size, with the single-GPU plan (one GPU) beside them. Log-log; each method's
# points sorted by size (smooth unique: two shapes of one size are averaged).
# Where the run had more than two GPUs (P > 2) it also writes DIR/15-distributed-scaling.svg
# from the summary: per element type at the 32768 x 32768 matrix, the best chunk count's share
# of the all-to-all and the strong-scaling speedup, against the number of GPUs.
if (!exists("csv") || !exists("outdir")) {
  print "plot.gp: pass -e \"csv='...'; outdir='...'\""
  exit status 2
}
set datafile separator comma
set datafile columnheaders
stats csv using (column("ranks")) nooutput
P = int(STATS_max)
is(m, p) = strcol("method") eq m && int(column("ranks")) == p && strcol("dtype") eq "float"
# Each method's rows into a table of its own (points filtered out of one plot would break its
# line), plotted sorted by size; a method without rows (no all-to-all on one GPU) is left out.
curves = ""
add(block, how) = sprintf("%s%s using 1:2 smooth unique with linespoints lw 2 %s, ", curves, block, how)
methods = "all-to-all chunks-1 chunks-4 chunks-16 single-gpu"
blocks = "$m1 $m2 $m3 $m4 $m5"
array how[5] = ['dt 2 pt 6 lc rgb "#444444" title "all-to-all, nothing transposed"', \
                'pt 7 lc rgb "#d95f02" title "transpose, 1 chunk (phases in turn)"', \
                'pt 5 lc rgb "#1b6ca8" title "transpose, 4 chunks"', \
                'pt 9 lc rgb "#1b9e77" title "transpose, 16 chunks"', \
                'pt 4 lc rgb "#7570b3" title "one GPU (tlab::Plan)"']
do for [k = 1:5] {
  m = word(methods, k)
  p = (m eq "single-gpu" ? 1 : P)
  stats csv using (is(m, p) ? 1 : 0) nooutput
  if (STATS_sum > 0) {
    eval sprintf("set table %s", word(blocks, k))
    plot csv using (column("matrix_bytes") / 2**30):(column("median_s") * 1e3) with table if (is(m, p))
    unset table
    curves = add(word(blocks, k), how[k])
  }
}
if (strlen(curves) == 0) {
  print "plot.gp: no float rows in " . csv
  exit status 1
}
set terminal svg size 820,480 dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/15-distributed-transpose.svg"
set title sprintf("float matrices in row blocks over %d GPUs: distributed transpose against the all-to-all", P) font ",13"
set logscale xy 2
# A run of one size (a quick run) would leave the x axis empty: give it an octave each side.
stats csv using (strcol("dtype") eq "float" ? column("matrix_bytes") / 2**30 : NaN) nooutput
if (STATS_max <= 1.01 * STATS_min) { set xrange [STATS_min / 2 : STATS_max * 2] }
set grid xtics ytics lc rgb "#e5e5e5"
set xlabel "matrix (GiB)"
set ylabel "median time (ms), the slowest GPU"
set key top left
# The tables are whitespace-separated, without header.
set datafile separator whitespace
set datafile nocolumnheaders
eval "plot " . curves[1:strlen(curves) - 2]

unset output
if (P > 2 && exists("summary")) {
  set output outdir . "/15-distributed-scaling.svg"
  set terminal svg size 900,420 dynamic enhanced font "Helvetica,12" background "white"
  set datafile separator comma
  set datafile columnheaders
  unset logscale
  unset title
  set style line 1 lw 2 pt 7 lc rgb "#d95f02"
  set style line 2 lw 2 pt 5 lc rgb "#1b6ca8"
  set style line 3 lw 2 pt 9 lc rgb "#1b9e77"
  types = "uint8 float complex128"
  gpus(s) = real(s[3:])
  at(m, t) = strcol("metric") eq m && strcol("dtype") eq t && int(column("rows")) == 32768 && int(column("cols")) == 32768
  # Each curve's points into a table of its own first: filtered rows would break the lines.
  do for [k = 1:3] {
    eval sprintf("set table $pct%d", k)
    plot summary using (gpus(strcol("subject"))):(column("value")) with table if (at("best-pct-of-all-to-all", word(types, k)))
    eval sprintf("set table $speed%d", k)
    plot summary using (gpus(strcol("subject"))):(column("value")) with table if (at("strong-scaling-speedup", word(types, k)))
    unset table
  }
  set datafile separator whitespace
  set datafile nocolumnheaders
  set multiplot layout 1, 2 title sprintf("32768 x 32768 in row blocks over 1 to %d GPUs (best chunk count of each)", P) font ",13"
  set xrange [0.5:P + 0.5]
  set xtics 1
  set grid xtics ytics lc rgb "#e5e5e5"
  set xlabel "GPUs"
  set key bottom left
  set ylabel "% of the all-to-all of the same blocks"
  set yrange [0:110]
  plot $pct1 using 1:2 smooth unique with linespoints ls 1 title word(types, 1), \
       $pct2 using 1:2 smooth unique with linespoints ls 2 title word(types, 2), \
       $pct3 using 1:2 smooth unique with linespoints ls 3 title word(types, 3)
  set ylabel "speedup over the same code on one GPU"
  set yrange [0:*]
  set offsets 0, 0, graph 0.1, 0
  set key bottom left
  plot $speed1 using 1:2 smooth unique with linespoints ls 1 title word(types, 1), \
       $speed2 using 1:2 smooth unique with linespoints ls 2 title word(types, 2), \
       $speed3 using 1:2 smooth unique with linespoints ls 3 title word(types, 3), \
       1 with lines dt 2 lc rgb "#444444" title "one GPU"
  unset multiplot
  unset output
}
