# Experiment 04 figures, called by scripts/build-report:
#   gnuplot -e "csv='A.csv'; summary='A-summary.csv'; outdir='DIR'" experiments/04-gpu-bank-conflicts/plot.gp
# writes DIR/04-gpu-bank-conflicts-memcpy.svg: for each element type (rows of panels) and
# matrix size (columns), the bandwidth of the tiled kernels as a percentage of memcpy's, one
# group of bars per tile shape with one bar per shared-memory layout (plain, +1 padding,
# swizzle). Values are the summary's pct-of-gpu/memcpy rows, computed by the experiment.
# Sizes are read from the data, so quick runs (fewer sizes) plot too.

# No apostrophes inside blocks that expand @macros: gnuplot's macro scanner takes them for quotes.
if (!exists("csv") || !exists("outdir")) {
  print "plot.gp: pass -e \"csv='...'; outdir='...'\""
  exit status 2
}
name = "04-gpu-bank-conflicts"
if (!exists("summary")) { summary = "" }

set datafile separator comma
set datafile columnheaders

types = "float double"
layouts = "none pad swizzle"
layout_titles = "plain pad+1 swizzle"

starts(s, p) = strstrt(s, p) == 1
ends(s, p) = strlen(s) >= strlen(p) && s[strlen(s) - strlen(p) + 1:] eq p
# Group of a variant: tile 8, 16, 32, then the unrolled 32x8 kernel (-1: not plotted).
group(s) = starts(s, "gpu/tiled/t8-") ? 0 : starts(s, "gpu/tiled/t16-") ? 1 : starts(s, "gpu/tiled/t32-") ? 2 : \
           starts(s, "gpu/unrolled/t32x8-") ? 3 : -1
is_pct(dummy) = strcol("metric") eq "pct-of-gpu/memcpy"
bar(l, t, n) = is_pct(0) && strcol("dtype") eq t && column("rows") == n && column("rows") == column("cols") && \
               group(strcol("subject")) >= 0 && ends(strcol("subject"), "-" . l)

# Distinct square sizes, ascending (statistics before any range is set). A stats whose every
# point is undefined sets no STATS_ variables, so each one is preceded by a count.
in_plot(dummy) = is_pct(0) && group(strcol("subject")) >= 0 && column("rows") == column("cols")
sizes = ""
any = 0; hi = 100
if (summary ne "") {
  stats summary using (in_plot(0) ? 1 : 0) nooutput
  any = (STATS_sum > 0)
}
if (any) {
  stats summary using (in_plot(0) ? column("rows") : NaN) nooutput
  n = STATS_min
  sizes = sprintf("%d", n)
  do for [k = 1:20] {
    stats summary using ((in_plot(0) && column("rows") > n) ? 1 : 0) nooutput
    if (STATS_sum == 0) { break }
    stats summary using ((in_plot(0) && column("rows") > n) ? column("rows") : NaN) nooutput
    n = STATS_min
    sizes = sizes . " " . sprintf("%d", n)
  }
  stats summary using (in_plot(0) ? column("value") : NaN) nooutput
  hi = (STATS_max > hi ? STATS_max : hi)
}
nsizes = (any ? words(sizes) : 1)
present = " "
if (any) {
  do for [t in types] {
    do for [k = 1:nsizes] {
      n = word(sizes, k) + 0
      stats summary using (bar("none", t, n) || bar("pad", t, n) || bar("swizzle", t, n) ? 1 : 0) nooutput
      if (STATS_sum > 0) { present = present . t . "@" . sprintf("%d", n) . " " }
    }
  }
}

set terminal svg size (nsizes > 2 ? 280 * nsizes + 120 : 800),640 dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/" . name . "-memcpy.svg"

set style line 1 lc rgb "#bbbbbb"
set style line 2 lc rgb "#1b6ca8"
set style line 3 lc rgb "#d95f02"
set style line 20 lc rgb "#666666" lw 1.2 dt 3
set style line 9 lc rgb "#e5e5e5" lw 0.8
set grid ytics ls 9
set style fill solid 0.9 border lc rgb "#ffffff"
set boxwidth 0.9
set xrange [-0.8 : 15.0]
set yrange [0 : hi * 1.1]
xtics_groups = 'set xtics ("tile 8" 1, "tile 16" 5, "tile 32" 9, "unrolled\n32×8" 13) scale 0 font ",10"'
@xtics_groups
set ylabel "% of memcpy"
# One key for the whole figure, under its title (drawn by the first panel only).
set key at screen 0.5, 0.905 center center horizontal maxrows 1 font ",10" samplen 1.5 width 2
set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead ls 20 front

nodata = 'set label 99 "no data in this run" at graph 0.5, 0.5 center; set key off; unset xtics; unset ytics; '.\
  'plot [1:2][1:2] 3 notitle; unset label 99; set key on; set ytics; @xtics_groups'

set multiplot layout 2, nsizes title "Tiled transposes by shared-memory layout, as a percentage of memcpy (dotted line)" font ",13" \
  margins 0.085, 0.98, 0.09, 0.83 spacing 0.05, 0.14
first = 1
do for [t in types] {
  do for [k = 1:nsizes] {
    if (k == 1) { set ylabel "% of memcpy" } else { unset ylabel }
    if (any) {
      n = word(sizes, k) + 0
      set title sprintf("%s, n = %d", t, n)
      if (strstrt(present, " " . t . "@" . sprintf("%d", n) . " ") > 0) {
        plot for [l = 1:3] summary using (bar(word(layouts, l), t, n) ? 4 * group(strcol("subject")) + l - 1 : NaN):(column("value")) \
             with boxes ls l title (first ? word(layout_titles, l) : "")
        first = 0
      } else {
        @nodata
      }
    } else {
      set title t
      @nodata
    }
  }
}
unset multiplot
