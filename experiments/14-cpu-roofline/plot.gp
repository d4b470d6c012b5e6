# Experiment 14 figures, called by scripts/build-report:
#   gnuplot -e "csv='A.csv'; summary='A-summary.csv'; outdir='DIR'" experiments/14-cpu-roofline/plot.gp
# writes DIR/14-cpu-roofline-bandwidth.svg (every variant, float and double, one and all
# threads) and DIR/14-cpu-roofline-pct.svg (ours as a percentage of the copy, every element
# size). A curve with no rows is left out and an empty panel says so, so that quick runs,
# --variants subsets and builds without the peers still plot.

# No apostrophes inside blocks that expand @macros: gnuplot's macro scanner takes them for quotes.
if (!exists("csv") || !exists("outdir")) {
  print "plot.gp: pass -e \"csv='...'; summary='...'; outdir='...'\""
  exit status 2
}
name = "14-cpu-roofline"

set datafile separator comma
set datafile columnheaders
# Rows of other curves give NaN: as missing data they are skipped without breaking a line.
set datafile missing NaN
set style line 1 lc rgb "#555555" lw 1.4 dt 2 pt 6 ps 0.6
set style line 2 lc rgb "#999999" lw 1.4 dt 3 pt 4 ps 0.6
set style line 3 lc rgb "#1b6ca8" lw 2.0 pt 7 ps 0.7
set style line 4 lc rgb "#1b9e77" lw 2.0 pt 5 ps 0.7
set style line 5 lc rgb "#d95f02" lw 1.6 pt 9 ps 0.8
set style line 6 lc rgb "#e6ab02" lw 1.6 pt 11 ps 0.8
set style line 7 lc rgb "#7570b3" lw 1.6 pt 13 ps 0.8
set style line 8 lc rgb "#e7298a" lw 1.6 pt 15 ps 0.8
set style line 9 lc rgb "#66a61e" lw 1.2 pt 3 ps 0.7
set style line 10 lc rgb "#a6761d" lw 1.2 pt 2 ps 0.7
set style line 20 lc rgb "#e5e5e5" lw 0.8
set grid xtics ytics ls 20, ls 20
set key font ",9" samplen 2 spacing 1.05 box lc rgb "#cccccc" outside right top
set logscale x 2
set format x "2^{%L}"

nodata = 'set label 99 "no data in this run" at graph 0.5, 0.5 center; set key off; '.\
  'plot [1:2][1:2] 3 notitle; unset label 99; set key on'

# One panel: a curve for each word of `vars` that has rows in `file`, y from column `ycol`,
# titled by the same word of `titles`. A word ending in "@" takes `suffix` (1t or all); one
# without is drawn only when suffix is 1t. `condfmt` is the row condition, with %s for the
# curve: nested macros do not expand, and a plot is evaluated after the loop, so each
# curve's condition is built as text with its name in it.
panel = 'cmd = ""; do for [k = 1:words(vars)] { w = word(vars, k); '.\
  '  v = (w[strlen(w):strlen(w)] eq "@") ? w . suffix : (suffix eq "1t" ? w : "none"); '.\
  '  c = sprintf(condfmt, v); '.\
  '  eval sprintf("stats %s using (%s ? 1 : 0) nooutput", file, c); '.\
  '  if (STATS_sum > 0) { cmd = cmd . (cmd eq "" ? "" : ", ") . '.\
  '    sprintf("%s using (%s ? column(\"rows\") : NaN):(column(\"%s\")) with linespoints ls %d title \"%s\" noenhanced", file, c, ycol, k, word(titles, k)) } }; '.\
  'if (cmd eq "") { @nodata } else { eval "plot " . cmd }'

# ---- bandwidth: float and double, one thread and all -----------------------------------
set terminal svg size 1200,780 dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/" . name . "-bandwidth.svg"
set multiplot layout 2, 2 title "Effective bandwidth (read + write), median of each configuration" font ",14"
set logscale y 10
set format y "%g"
set ytics (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200)
set ylabel "GB/s"
set xlabel "matrix size n (n × n)"
vars = "cpu/copy/memcpy@ cpu/copy/stream@ cpu/simd/auto@ cpu/simd-inplace/auto@ cpu/peer/openblas-omatcopy@ cpu/peer/openblas-imatcopy@ cpu/peer/eigen-transpose@ cpu/peer/eigen-transpose-in-place@ cpu/blocked/32 cpu/naive"
titles = "memcpy stream-copy ours ours-in-place OpenBLAS-omatcopy OpenBLAS-imatcopy Eigen-transpose Eigen-in-place blocked-32-scalar naive"
file = "csv"
ycol = "gbs"
do for [ty in "float double"] {
  do for [th in "1t all"] {
    set title ty . ", " . (th eq "1t" ? "one thread" : "all threads") noenhanced
    suffix = th
    condfmt = '(strcol("dtype") eq "' . ty . '" && strcol("variant") eq "%s")'
    @panel
  }
}
unset multiplot

# ---- ours as a percentage of the copy, every element size ------------------------------
set output outdir . "/" . name . "-pct.svg"
set terminal svg size 1200,760 dynamic enhanced font "Helvetica,12" background "white"
set multiplot layout 2, 2 title "Ours as a percentage of the faster copy at the same threads, type and size" font ",14"
unset logscale y
set format y "%g"
set ytics autofreq
set yrange [0:*]
set ylabel "% of copy"
vars = "uint8 uint16 float double complex128"
suffix = "1t"  # the words are types, taken as they are
titles = "1-byte 2-byte 4-byte(float) 8-byte(double) 16-byte(complex128)"
ycol = "value"
if (!exists("summary") || summary eq "") {
  do for [p = 1:4] { @nodata }
} else {
  file = "summary"
  do for [variant in "cpu/simd/auto cpu/simd-inplace/auto"] {
    do for [th in "@1t @all"] {
      set title (variant eq "cpu/simd/auto" ? "out of place, " : "in place, ") . (th eq "@1t" ? "one thread" : "all threads") noenhanced
      condfmt = '(strcol("metric") eq "pct-of-copy" && strcol("subject") eq "' . variant . th . '" && strcol("dtype") eq "%s")'
      @panel
    }
  }
}
unset multiplot
