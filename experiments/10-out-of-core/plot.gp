# Experiment 10 figure, called by scripts/build-report:
#   gnuplot -e "csv='A.csv'; summary='A-summary.csv'; outdir='DIR'" experiments/10-out-of-core/plot.gp
# writes DIR/10-out-of-core.svg: one bar per method (rows of the CSV other than the copy),
# its bandwidth in GB/s (the matrix read and written, twice its bytes, over the median), with
# the pinned copies in both directions of the same run drawn as a level line.
if (!exists("csv") || !exists("outdir")) {
  print "plot.gp: pass -e \"csv='...'; outdir='...'\""
  exit status 2
}
set datafile separator comma
set datafile columnheaders
stats csv using (strcol("method") eq "copy-both-ways" ? column("gbs") : NaN) nooutput
copy = STATS_max
stats csv using (strcol("method") eq "copy-both-ways" ? NaN : column("gbs")) nooutput
hi = (STATS_max > copy ? STATS_max : copy)
stats csv using (strcol("method") eq "copy-both-ways" ? NaN : column("times_device_memory")) nooutput
times = STATS_max
set terminal svg size 820,440 dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/10-out-of-core.svg"
set title sprintf("In-place transpose of a float matrix of %.2g times the GPU memory, in host memory", times) font ",13"
set style fill solid 0.9 border lc rgb "#ffffff"
set boxwidth 0.6
set grid ytics lc rgb "#e5e5e5"
set ylabel "GB/s (matrix read and written over the median)"
set yrange [0 : hi * 1.2]
set xtics norotate scale 0 font ",10"
set bmargin 3
set key top right
set arrow 1 from graph 0, first copy to graph 1, first copy nohead lc rgb "#444444" dt 2 lw 1.5
set label 1 sprintf("pinned copies, both directions at once: %.1f GB/s", copy) at graph 0.02, first copy offset 0, 0.7 font ",10" tc rgb "#444444"
# The program writes the copy ceiling as the first data row: skip it (every ::1) so that it
# takes no slot on the axis.
plot csv every ::1 using 0:"gbs":xtic(strcol("method")) with boxes lc rgb "#1b6ca8" notitle
