# Experiment 11 figures, called by scripts/build-report:
#   gnuplot -e "csv='A.csv'; summary='A-summary.csv'; outdir='DIR'" experiments/11-gpu-matrix-sort/plot.gp
# writes
#   DIR/11-gpu-matrix-sort-time.svg: median time of each sort against the number of elements,
#     square int32 matrices, the GPU sorts (device memory) and the CPU sorts of the same run;
#   DIR/11-gpu-matrix-sort-share.svg: for each GPU sort at the largest square int32 matrix of
#     the run, its device time split into row sorts, transposes and the rest (key maps, check),
#     from the CSV's sort_s, transpose_s, keys_s and check_s columns.
# Curves are gathered with "with table if (...)" so that each one's points are joined.
if (!exists("csv") || !exists("outdir")) {
  print "plot.gp: pass -e \"csv='...'; outdir='...'\""
  exit status 2
}
set datafile separator comma
set datafile columnheaders
sorts = "cpu/sort-sequential cpu/sort-threaded gpu/thread-bubble gpu/thread-merge gpu/block-oddeven gpu/seed-loop/block-oddeven gpu/block-bitonic gpu/cub-segmented-sort gpu/cub-segmented-radix"
colors = "#444444 #999999 #b2182b #ef8a62 #d6604d #f4a582 #2166ac #4393c3 #1b7837"
ns = words(sorts)
square_int(v) = strcol("variant") eq v && strcol("dtype") eq "int32" && column("rows") == column("cols")
have = ""
do for [k = 1:ns] {
  v = word(sorts, k)
  eval sprintf("set table $T%d", k)
  plot csv using (column("rows") * column("cols")):(column("median_s")) with table if (square_int(v))
  unset table
  eval sprintf("n = |$T%d|", k)
  if (n > 0) { have = have . sprintf(" %d", k) }
}
set datafile separator whitespace   # the tables gathered above
set datafile nocolumnheaders
set terminal svg size 900,480 dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/11-gpu-matrix-sort-time.svg"
set title "Row-and-column sort of square int32 matrices: CPU and GPU on one machine" font ",13"
set logscale xy
set format y "10^{%L}"
set xlabel "elements (rows x cols)"
set ylabel "median time (s)"
set grid xtics ytics lc rgb "#e5e5e5"
set key outside right top font ",10" samplen 2
cmd = ""
do for [i = 1:words(have)] {
  k = word(have, i) + 0
  cmd = cmd . (cmd eq "" ? "" : ", ") . sprintf("$T%d using 1:2 with linespoints lw 1.6 pt 7 ps 0.7 lc rgb \"%s\" title \"%s\"", \
        k, word(colors, k), word(sorts, k))
}
if (cmd eq "") { set label 1 "no data" at graph 0.5, 0.5 center; plot [1:2][1:2] NaN notitle } else { eval "plot " . cmd }

# ---- share of time -----------------------------------------------------------------------------
reset
set datafile separator comma
set datafile columnheaders
stats csv using ((strcol("memory") eq "device" && strcol("dtype") eq "int32" && column("rows") == column("cols")) ? column("rows") : NaN) nooutput
big = STATS_max
gpu_sorts = "gpu/thread-merge gpu/block-oddeven gpu/block-bitonic gpu/cub-segmented-sort gpu/cub-segmented-radix"
at_big(v) = strcol("variant") eq v && strcol("dtype") eq "int32" && column("rows") == big && column("cols") == big
set print $S
do for [k = 1:words(gpu_sorts)] {
  v = word(gpu_sorts, k)
  # One column per stats: two would fit a line through one point and warn that it cannot.
  stats csv using (at_big(v) ? column("sort_s") : NaN) nooutput
  if (STATS_records > 0) {
    s = STATS_max
    stats csv using (at_big(v) ? column("transpose_s") : NaN) nooutput
    t = STATS_max
    stats csv using (at_big(v) ? column("keys_s") : NaN) nooutput
    o = STATS_max
    tot = s + t + o
    print sprintf("\"%s\" %g %g %g", v[5:], 100 * s / tot, 100 * t / tot, 100 * o / tot)
  }
}
unset print
set datafile separator whitespace
set datafile nocolumnheaders
set terminal svg size 820,420 dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/11-gpu-matrix-sort-share.svg"
set title sprintf("Where the GPU time goes, int32 %d x %d", big, big) font ",13"
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border lc rgb "#ffffff"
set boxwidth 0.6
set yrange [0:100]
set ylabel "% of the device time"
set key outside right top font ",10"
set grid ytics lc rgb "#e5e5e5"
set xtics scale 0 font ",9"
plot $S using 2:xtic(1) lc rgb "#2166ac" title "row sorts", '' using 3 lc rgb "#1b7837" title "transposes", \
     '' using 4 lc rgb "#bbbbbb" title "key maps"
