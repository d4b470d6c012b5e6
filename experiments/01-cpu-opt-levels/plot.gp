# Experiment 01 figures, called by scripts/build-report:
#   gnuplot -e "csv='A.csv'; summary='A-summary.csv'; outdir='DIR'" experiments/01-cpu-opt-levels/plot.gp
# writes DIR/01-cpu-opt-levels-{time,bandwidth,threshold}.svg.
# Columns are addressed by header name, so a reordered CSV still plots right. A curve with no
# rows is left out (gnuplot stops on a plot whose every point is undefined), and a panel with
# no curve at all says so instead of failing: quick runs and --variants subsets stay plottable.

# No apostrophes inside blocks that expand @macros: gnuplot's macro scanner takes them for quotes.
if (!exists("csv") || !exists("outdir")) {
  print "plot.gp: pass -e \"csv='...'; outdir='...'\""
  exit status 2
}
name = "01-cpu-opt-levels"

set datafile separator comma
set datafile columnheaders
set terminal svg size 980,760 dynamic enhanced font "Helvetica,12" background "white"

algos  = "cpu/inplace-naive cpu/inplace-prefetch cpu/inplace-oblivious-seed/t128 cpu/inplace-oblivious/t128"
levels = "O0 O1 O2 O3"
forms  = "cpu/inplace-oblivious cpu/inplace-oblivious-seed"
thresholds = "32 64 128 256 512"

ok(v) = strcol("variant") eq v && strcol("dtype") eq "int32" && column("rows") == column("cols")

algo_titles = "naive prefetch oblivious-seed/t128 oblivious/t128"
every_algo = ""
do for [l in levels] { do for [a in algos] { every_algo = every_algo . " " . a . "@" . l } }
every_sweep = ""
do for [f in forms] { do for [t in thresholds] { every_sweep = every_sweep . " " . f . "/t" . t . "@O3" } }

# All statistics first: `stats` obeys the axis ranges and log scales set for plotting.
# `have` lists the variants with rows; range_of sets lo, hi, xlo, xhi, any over `vars`, `col`.
have = " "
do for [k = 1:words(every_algo . every_sweep)] {
  v = word(every_algo . every_sweep, k)
  stats csv using (ok(v) ? 1 : 0) nooutput
  if (STATS_sum > 0) { have = have . v . " " }
}
has(v) = strstrt(have, " " . v . " ") > 0
range_of = 'any = 0; lo = 1e300; hi = 0; xlo = 1e300; xhi = 0; '.\
  'do for [k = 1:words(vars)] { v = word(vars, k); if (has(v)) { any = 1; '.\
  '  stats csv using (ok(v) ? column(col) : NaN) nooutput; lo = (STATS_min < lo ? STATS_min : lo); hi = (STATS_max > hi ? STATS_max : hi); '.\
  '  stats csv using (ok(v) ? column("rows") : NaN) nooutput; xlo = (STATS_min < xlo ? STATS_min : xlo); xhi = (STATS_max > xhi ? STATS_max : xhi) } }'
vars = every_algo; col = "median_s"; @range_of
t_any = any; t_lo = lo; t_hi = hi; a_xlo = xlo; a_xhi = xhi
col = "gbs_ci_lo"; @range_of
b_lo = lo
col = "gbs_ci_hi"; @range_of
b_hi = hi
vars = every_sweep; @range_of
s_any = any; s_hi = hi; s_xlo = xlo; s_xhi = xhi
col = "gbs_ci_lo"; @range_of
s_lo = lo

set style line 1 lc rgb "#1b6ca8" lw 1.6 pt 7 ps 0.7
set style line 2 lc rgb "#d95f02" lw 1.6 pt 5 ps 0.7
set style line 3 lc rgb "#7570b3" lw 1.6 pt 9 ps 0.8
set style line 4 lc rgb "#1b9e77" lw 1.6 pt 13 ps 0.8
set style line 5 lc rgb "#b8860b" lw 1.6 pt 11 ps 0.8
set style line 9 lc rgb "#e5e5e5" lw 0.8
set grid xtics ytics mxtics mytics ls 9, ls 9
set key font ",9" samplen 2 spacing 1.1 opaque box lc rgb "#cccccc"
set logscale x 2
set format x "2^{%L}"
set xlabel "matrix size n (n × n int32)"

nodata = 'set label 99 "no data in this run" at graph 0.5, 0.5 center; set key off; '.\
  'plot [1:2][1:2] 3 notitle; unset label 99; set key on'

# One panel: curves for `vars`, titles `titles` (space-separated), y column `col`;
# with_ci = 1 adds the 95% CI of the median as error bars.
panel = 'cmd = ""; do for [k = 1:words(vars)] { v = word(vars, k); if (has(v)) { '.\
  '  cmd = cmd . (cmd eq "" ? "" : ", ") . (with_ci ? '.\
  '    sprintf("csv using (ok(\"%s\") ? column(\"rows\") : NaN):(column(\"%s\")):(column(\"gbs_ci_lo\")):(column(\"gbs_ci_hi\")) with yerrorlines ls %d title \"%s\" noenhanced", v, col, k, word(titles, k)) : '.\
  '    sprintf("csv using (ok(\"%s\") ? column(\"rows\") : NaN):(column(\"%s\")) with linespoints ls %d title \"%s\" noenhanced", v, col, k, word(titles, k))) } }; '.\
  'if (cmd eq "") { @nodata } else { eval "plot " . cmd }'

# ---- time and bandwidth vs size, one panel per optimisation level ---------------------------
do for [fig = 1:2] {
  col = (fig == 1 ? "median_s" : "gbs")
  with_ci = (fig == 2)
  set output outdir . "/" . name . (fig == 1 ? "-time.svg" : "-bandwidth.svg")
  set multiplot layout 2, 2 title (fig == 1 ? "Median time of one in-place transpose" : "Effective bandwidth (median; bars: 95% CI)") font ",14"
  if (fig == 1) {
    set logscale y 10
    set ytics autofreq
    set format y "10^{%L}"
    set ylabel "time (s)"
    set key top left
  } else {
    set logscale y 10
    set format y "%g"
    set ytics (0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200)
    set ylabel "GB/s"
    set key top right
  }
  if (t_any) {
    set xrange [a_xlo / 1.4 : a_xhi * 1.4]
    if (fig == 1) { set yrange [t_lo / 2 : t_hi * 2] } else { set yrange [b_lo / 1.5 : b_hi * 1.5] }
  }
  do for [l in levels] {
    set title "-" . l
    vars = ""
    do for [a in algos] { vars = vars . " " . a . "@" . l }
    titles = algo_titles
    if (t_any) { @panel } else { @nodata }
  }
  unset multiplot
}

# ---- threshold sweep at -O3: bandwidth vs size, one panel per recursion form -----------------
col = "gbs"
set output outdir . "/" . name . "-threshold.svg"
set terminal svg size 980,420 dynamic enhanced font "Helvetica,12" background "white"
set multiplot layout 1, 2 title "Threshold sweep at -O3: effective bandwidth (median; bars: 95% CI)" font ",14"
set logscale y 10
set format y "%g"
set ytics (0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200)
set ylabel "GB/s"
set key top right
if (s_any) { set xrange [s_xlo / 1.4 : s_xhi * 1.4]; set yrange [s_lo / 1.5 : s_hi * 1.5] }
with_ci = 1
do for [f in forms] {
  set title (f eq "cpu/inplace-oblivious" ? "one-pass recursion (ours)" : "Algorithm 3 of seed 000 (quadrants, then swap)") noenhanced
  vars = ""
  titles = ""
  do for [t in thresholds] { vars = vars . " " . f . "/t" . t . "@O3"; titles = titles . " t=" . t }
  if (s_any) { @panel } else { @nodata }
}
unset multiplot
