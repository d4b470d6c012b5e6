# Experiment 03 figures, called by scripts/build-report:
#   gnuplot -e "csv='A.csv'; summary='A-summary.csv'; outdir='DIR'" experiments/03-gpu-shared-vs-naive/plot.gp
# writes DIR/03-gpu-shared-vs-naive-memcpy.svg: each kernel's bandwidth as a percentage of
# memcpy's at the same size and element type (the summary's pct-of-gpu/memcpy rows, computed
# by the experiment), against matrix size; columns of panels by element type, rows out of
# place / in place. Curves with no rows are left out; a panel with none says so.

# No apostrophes inside blocks that expand @macros: gnuplot's macro scanner takes them for quotes.
if (!exists("csv") || !exists("outdir")) {
  print "plot.gp: pass -e \"csv='...'; outdir='...'\""
  exit status 2
}
name = "03-gpu-shared-vs-naive"
if (!exists("summary")) { summary = "" }

set datafile separator comma
set datafile columnheaders

types = "int32 float double"
outplace = "gpu/naive-rowread/b16 gpu/naive-rowread/b32 gpu/naive-colread/b16 gpu/naive-colread/b32 gpu/tiled/t16-pad gpu/tiled/t32-pad"
outplace_titles = "naive-rowread-16 naive-rowread-32 naive-colread-16 naive-colread-32 tiled-16 tiled-32"
inplace = "gpu/inplace-naive/b16 gpu/inplace-naive/b32 gpu/inplace-tiled/t16x16 gpu/inplace-tiled/t32x8 gpu/inplace-tiled/t32x32"
inplace_titles = "naive-16 naive-32 tiled-16×16 tiled-32×8 tiled-32×32"

ok(v, t) = strcol("metric") eq "pct-of-gpu/memcpy" && strcol("subject") eq v && strcol("dtype") eq t

# Statistics first (they obey ranges and log scales). `have` lists "variant@type" with rows.
have = " "
any = 0; hi = 0; xlo = 1e300; xhi = 0
if (summary ne "") {
  do for [t in types] {
    do for [v in outplace . " " . inplace] {
      stats summary using (ok(v, t) ? 1 : 0) nooutput
      if (STATS_sum > 0) {
        have = have . v . "@" . t . " "
        any = 1
        stats summary using (ok(v, t) ? column("value") : NaN) nooutput
        hi = (STATS_max > hi ? STATS_max : hi)
        stats summary using (ok(v, t) ? column("rows") : NaN) nooutput
        xlo = (STATS_min < xlo ? STATS_min : xlo); xhi = (STATS_max > xhi ? STATS_max : xhi)
      }
    }
  }
}
has(v, t) = strstrt(have, " " . v . "@" . t . " ") > 0

set terminal svg size 1100,820 dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/" . name . "-memcpy.svg"

# Blue: naive with coalesced reads; green: coalesced writes; purple: naive swap in place;
# orange: shared-memory tiles. Solid: 16-wide blocks; dashed: 32-wide.
set style line 1 lc rgb "#1b6ca8" lw 1.6 pt 7 ps 0.6
set style line 2 lc rgb "#1b6ca8" lw 1.6 dt 2 pt 6 ps 0.6
set style line 3 lc rgb "#1b9e77" lw 1.6 pt 5 ps 0.6
set style line 4 lc rgb "#1b9e77" lw 1.6 dt 2 pt 4 ps 0.6
set style line 5 lc rgb "#d95f02" lw 1.8 pt 9 ps 0.7
set style line 6 lc rgb "#d95f02" lw 1.8 dt 2 pt 8 ps 0.7
set style line 7 lc rgb "#b8860b" lw 1.8 dt 4 pt 11 ps 0.7
set style line 10 lc rgb "#7570b3" lw 1.6 pt 13 ps 0.7
set style line 11 lc rgb "#7570b3" lw 1.6 dt 2 pt 12 ps 0.7
set style line 20 lc rgb "#888888" lw 1.5 dt 3
set style line 9 lc rgb "#e5e5e5" lw 0.8
set grid xtics ytics ls 9, ls 9
set key below horizontal maxcols 3 reverse Left font ",8" samplen 2.5 spacing 1.0 width -2
set logscale x 2
set format x "2^{%L}"
set ylabel "% of memcpy (same size and type)"
if (any) { set xrange [xlo / 1.3 : xhi * 1.3]; set yrange [0 : (hi > 100 ? hi : 100) * 1.08] }
set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead ls 20 back

nodata = 'set label 99 "no data in this run" at graph 0.5, 0.5 center; set key off; '.\
  'plot [1:2][1:2] 3 notitle; unset label 99; set key on'

panel = 'cmd = ""; do for [k = 1:words(vars)] { v = word(vars, k); if (has(v, t)) { '.\
  '  cmd = cmd . (cmd eq "" ? "" : ", ") . sprintf("summary using (ok(\"%s\", \"%s\") ? column(\"rows\") : NaN):(column(\"value\")) with linespoints ls %s title \"%s\" noenhanced", v, t, word(styles, k), word(titles, k)) } }; '.\
  'if (cmd eq "") { @nodata } else { eval "plot " . cmd }'

set multiplot layout 2, 3 title "Bandwidth as a percentage of memcpy (dotted line) against matrix size n (n × n):\nout of place (top), in place (bottom)" font ",13"
do for [t in types] {
  set title "out of place, " . t
  set xlabel ""
  vars = outplace; titles = outplace_titles; styles = "1 2 3 4 5 6"
  @panel
}
do for [t in types] {
  set title "in place, " . t
  set xlabel ""
  vars = inplace; titles = inplace_titles; styles = "10 11 5 7 6"
  @panel
}
unset multiplot
