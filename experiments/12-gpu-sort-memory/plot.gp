# Experiment 12 figure, called by scripts/build-report:
#   gnuplot -e "csv='A.csv'; summary='A-summary.csv'; outdir='DIR'" experiments/12-gpu-sort-memory/plot.gp
# writes DIR/12-gpu-sort-memory.svg: at the largest square int32 matrix of the run, the median
# time of the same GPU sort (CUB's segmented radix sort) from each place the matrix can live:
# device memory (the sort alone), pinned, pageable and managed host memory, and pinned with
# the seed's streamed schedules. Bars in the CSV's order.
if (!exists("csv") || !exists("outdir")) {
  print "plot.gp: pass -e \"csv='...'; outdir='...'\""
  exit status 2
}
set datafile separator comma
set datafile columnheaders
stats csv using ((strcol("dtype") eq "int32" && column("rows") == column("cols")) ? column("rows") : NaN) nooutput
big = STATS_max
here(dummy) = strcol("dtype") eq "int32" && column("rows") == big && column("cols") == big
set table $B
plot csv using (column("median_s") * 1e3):(0):(strcol("memory") . (column("streams") > 1 ? sprintf("|%d streams, %s", column("streams"), strcol("order")) : "")) \
  with table if (here(0))
unset table
set datafile separator tab
set datafile nocolumnheaders
set terminal svg size 860,440 dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/12-gpu-sort-memory.svg"
set title sprintf("The same GPU sort from each kind of memory, int32 %d x %d", big, big) font ",13"
set style fill solid 0.9 border lc rgb "#ffffff"
set boxwidth 0.6
set grid ytics lc rgb "#e5e5e5"
set ylabel "median time (ms)"
set yrange [0:*]
set xtics scale 0 font ",9"
# "|" in a label starts its second line (a newline cannot pass through the table).
two_lines(s) = strstrt(s, "|") > 0 ? s[1:strstrt(s, "|") - 1] . "\n" . s[strstrt(s, "|") + 1:] : s
plot $B using 0:1:xtic(two_lines(strcol(3))) with boxes lc rgb "#1b6ca8" notitle
