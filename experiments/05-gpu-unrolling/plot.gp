# Experiment 05 figures, called by scripts/build-report:
#   gnuplot -e "csv='A.csv'; summary='A-summary.csv'; outdir='DIR'" experiments/05-gpu-unrolling/plot.gp
# writes DIR/05-gpu-unrolling-grid.svg: the (TILE, SIDE) grid as heat maps of bandwidth in
# percent of memcpy (the summary's pct-of-gpu/memcpy rows, computed by the experiment), one
# row of panels per matrix size and one column per shared-memory layout. The one-element-per-
# thread tiled kernels sit on the SIDE = TILE cells. Sizes come from the data, so quick runs
# (other sizes) plot too; grid cells that were not run stay grey.

# No apostrophes inside blocks that expand @macros: gnuplot's macro scanner takes them for quotes.
if (!exists("csv") || !exists("outdir")) {
  print "plot.gp: pass -e \"csv='...'; outdir='...'\""
  exit status 2
}
name = "05-gpu-unrolling"
if (!exists("summary")) { summary = "" }

set datafile separator comma
set datafile columnheaders

layouts = "pad swizzle"
starts(s, p) = strstrt(s, p) == 1
ends(s, p) = strlen(s) >= strlen(p) && s[strlen(s) - strlen(p) + 1:] eq p
unrolled(s) = starts(s, "gpu/unrolled/t")
tiled(s) = starts(s, "gpu/tiled/t")
# "gpu/unrolled/t32x8-pad" -> "32x8-pad"; "gpu/tiled/t16-pad" -> "16-pad"
rest(s) = unrolled(s) ? s[15:] : s[12:]
tile(s) = unrolled(s) ? rest(s)[1:strstrt(rest(s), "x") - 1] + 0 : rest(s)[1:strstrt(rest(s), "-") - 1] + 0
side(s) = unrolled(s) ? rest(s)[strstrt(rest(s), "x") + 1:strstrt(rest(s), "-") - 1] + 0 : tile(s)
log2(x) = log(x) / log(2)
in_grid(dummy) = strcol("metric") eq "pct-of-gpu/memcpy" && (unrolled(strcol("subject")) || tiled(strcol("subject"))) && \
                 column("rows") == column("cols")
cell(l, n) = in_grid(0) && ends(strcol("subject"), "-" . l) && column("rows") == n

# Distinct sizes, ascending, and the colour range (before any range is set; a stats whose
# every point is undefined sets nothing, so each is preceded by a count).
sizes = ""
any = 0; lo = 0; hi = 100
if (summary ne "") {
  stats summary using (in_grid(0) ? 1 : 0) nooutput
  any = (STATS_sum > 0)
}
if (any) {
  stats summary using (in_grid(0) ? column("rows") : NaN) nooutput
  n = STATS_min
  sizes = sprintf("%d", n)
  do for [k = 1:20] {
    stats summary using ((in_grid(0) && column("rows") > n) ? 1 : 0) nooutput
    if (STATS_sum == 0) { break }
    stats summary using ((in_grid(0) && column("rows") > n) ? column("rows") : NaN) nooutput
    n = STATS_min
    sizes = sizes . " " . sprintf("%d", n)
  }
  stats summary using (in_grid(0) ? column("value") : NaN) nooutput
  lo = STATS_min; hi = STATS_max
}
nsizes = (any ? words(sizes) : 1)
present = " "
if (any) {
  do for [k = 1:nsizes] {
    do for [l in layouts] {
      n = word(sizes, k) + 0
      stats summary using (cell(l, n) ? 1 : 0) nooutput
      if (STATS_sum > 0) { present = present . l . "@" . sprintf("%d", n) . " " }
    }
  }
}

set terminal svg size 900,(300 * nsizes + 100) dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/" . name . "-grid.svg"

set palette defined (0 "#ffffd9", 0.5 "#7fcdbb", 1 "#1d91c0")
set cbrange [lo : (hi > lo ? hi : lo + 1)]
set cblabel "% of memcpy" font ",10"
cbox = 'set colorbox vertical user origin screen 0.885, 0.15 size screen 0.02, 0.65'
@cbox
set xrange [0.5 : 5.5]
set yrange [3.5 : 6.5]
grid_tics = 'set xtics ("2" 1, "4" 2, "8" 3, "16" 4, "32" 5) scale 0; set ytics ("16" 4, "32" 5, "64" 6) scale 0'
@grid_tics
set xlabel "SIDE (each thread moves TILE/SIDE elements; SIDE = TILE: one)" font ",10"
set ylabel "TILE" font ",10"
set object 1 rect from graph 0, 0 to graph 1, 1 fc rgb "#eeeeee" fs solid behind
set key off
set style fill solid 1.0 border lc rgb "#ffffff"

nodata = 'set label 99 "no data in this run" at graph 0.5, 0.5 center; unset xtics; unset ytics; unset colorbox; '.\
  'plot [1:2][1:2] 3 notitle; unset label 99; @grid_tics; @cbox'

set multiplot layout nsizes, 2 title "Unrolled tiled transposes (float): bandwidth as a percentage of memcpy by (TILE, SIDE)" font ",13" \
  margins 0.08, 0.85, (nsizes > 1 ? 0.08 : 0.16), (nsizes > 1 ? 0.9 : 0.84) spacing 0.08, (nsizes > 2 ? 0.11 : 0.15)
do for [k = 1:nsizes] {
  do for [li = 1:2] {
    l = word(layouts, li)
    if (any) {
      n = word(sizes, k) + 0
      set title sprintf("n = %d, %s", n, (l eq "pad" ? "padded tile (+1 column)" : "swizzled tile")) font ",11"
      if (strstrt(present, " " . l . "@" . sprintf("%d", n) . " ") > 0) {
        plot summary using (cell(l, n) ? log2(side(strcol("subject"))) : NaN):(cell(l, n) ? log2(tile(strcol("subject"))) : NaN):(0.5):(0.5):(column("value")) \
               with boxxyerror fc palette, \
             summary using (cell(l, n) ? log2(side(strcol("subject"))) : NaN):(cell(l, n) ? log2(tile(strcol("subject"))) : NaN):(sprintf("%.0f", column("value"))) \
               with labels font ",11"
      } else {
        @nodata
      }
    } else {
      set title l
      @nodata
    }
  }
}
unset multiplot
