# Experiment 02 figures, called by scripts/build-report:
#   gnuplot -e "csv='A.csv'; summary='A-summary.csv'; outdir='DIR'" experiments/02-gpu-block-sizes/plot.gp
# writes DIR/02-gpu-block-sizes-bandwidth.svg: effective bandwidth against matrix size, one
# panel per kernel family, one curve per block (or tile) size, memcpy of the same run as the
# ceiling. Columns are addressed by header name; a curve with no rows is left out and a panel
# with none says so, so quick runs and --variants subsets still plot.

# No apostrophes inside blocks that expand @macros: gnuplot's macro scanner takes them for quotes.
if (!exists("csv") || !exists("outdir")) {
  print "plot.gp: pass -e \"csv='...'; outdir='...'\""
  exit status 2
}
name = "02-gpu-block-sizes"

set datafile separator comma
set datafile columnheaders

ok(v) = strcol("variant") eq v && strcol("dtype") eq "int32" && column("rows") == column("cols")

p_naive_in  = "gpu/inplace-naive/b4 gpu/inplace-naive/b8 gpu/inplace-naive/b16 gpu/inplace-naive/b32"
p_rowread   = "gpu/naive-rowread/b4 gpu/naive-rowread/b8 gpu/naive-rowread/b16 gpu/naive-rowread/b32"
p_colread   = "gpu/naive-colread/b4 gpu/naive-colread/b8 gpu/naive-colread/b16 gpu/naive-colread/b32"
p_tiled     = "gpu/tiled/t8-pad gpu/tiled/t16-pad gpu/tiled/t32-pad gpu/inplace-tiled/t16x16 gpu/inplace-tiled/t32x8 gpu/inplace-tiled/t32x32"
every = p_naive_in . " " . p_rowread . " " . p_colread . " " . p_tiled . " gpu/memcpy"

# All statistics first: `stats` obeys the axis ranges and log scales set for plotting.
have = " "
any = 0; lo = 1e300; hi = 0; xlo = 1e300; xhi = 0
do for [k = 1:words(every)] {
  v = word(every, k)
  stats csv using (ok(v) ? 1 : 0) nooutput
  if (STATS_sum > 0) {
    have = have . v . " "
    any = 1
    stats csv using (ok(v) ? column("gbs") : NaN) nooutput
    lo = (STATS_min < lo ? STATS_min : lo); hi = (STATS_max > hi ? STATS_max : hi)
    stats csv using (ok(v) ? column("rows") : NaN) nooutput
    xlo = (STATS_min < xlo ? STATS_min : xlo); xhi = (STATS_max > xhi ? STATS_max : xhi)
  }
}
has(v) = strstrt(have, " " . v . " ") > 0

set terminal svg size 1000,780 dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/" . name . "-bandwidth.svg"

# Colour by block (tile) edge: 4, 8, 16, 32; dashed: in place (tiled panel); grey: memcpy.
set style line 1 lc rgb "#1b9e77" lw 1.6 pt 7 ps 0.6
set style line 2 lc rgb "#7570b3" lw 1.6 pt 5 ps 0.6
set style line 3 lc rgb "#d95f02" lw 1.6 pt 9 ps 0.7
set style line 4 lc rgb "#1b6ca8" lw 1.6 pt 13 ps 0.7
set style line 5 lc rgb "#b8860b" lw 1.6 pt 11 ps 0.7
set style line 13 lc rgb "#d95f02" lw 1.6 dt 2 pt 8 ps 0.7
set style line 14 lc rgb "#1b6ca8" lw 1.6 dt 2 pt 12 ps 0.7
set style line 15 lc rgb "#b8860b" lw 1.6 dt 2 pt 10 ps 0.7
set style line 20 lc rgb "#888888" lw 2.2 dt 3 pt 0
set style line 9 lc rgb "#e5e5e5" lw 0.8
set grid xtics ytics mytics ls 9, ls 9
set key top left reverse Left font ",9" samplen 2.5 spacing 1.05 opaque box lc rgb "#cccccc"
set logscale x 2
set format x "2^{%L}"
set logscale y 10
set format y "%g"
set ytics (10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
set xlabel "matrix size n (n × n int32)"
set ylabel "effective bandwidth (GB/s)"
if (any) { set xrange [xlo / 1.3 : xhi * 1.3]; set yrange [lo / 1.3 : hi * 1.6] }

nodata = 'set label 99 "no data in this run" at graph 0.5, 0.5 center; set key off; '.\
  'plot [1:2][1:2] 3 notitle; unset label 99; set key on'

# One panel: curves `vars` with titles `titles` and line styles `styles` (space-separated),
# plus the memcpy ceiling.
panel = 'cmd = ""; do for [k = 1:words(vars)] { v = word(vars, k); if (has(v)) { '.\
  '  cmd = cmd . (cmd eq "" ? "" : ", ") . sprintf("csv using (ok(\"%s\") ? column(\"rows\") : NaN):(column(\"gbs\")) with linespoints ls %s title \"%s\" noenhanced", v, word(styles, k), word(titles, k)) } }; '.\
  'if (cmd ne "" && has("gpu/memcpy")) { cmd = cmd . ", csv using (ok(\"gpu/memcpy\") ? column(\"rows\") : NaN):(column(\"gbs\")) with lines ls 20 title \"memcpy\"" }; '.\
  'if (cmd eq "") { @nodata } else { eval "plot " . cmd }'

set multiplot layout 2, 2 title "Effective bandwidth by block size (int32, in place and out of place; median)" font ",14"

set title "in place: naive swap (seeds 000, 002)"
vars = p_naive_in; titles = "4×4 8×8 16×16 32×32"; styles = "1 2 3 4"
@panel

set title "out of place: naive, coalesced reads (seed 001)"
vars = p_rowread
@panel

set title "out of place: naive, coalesced writes (seed 004)"
vars = p_colread
@panel

set title "shared-memory tiles: out of place (solid), in place (dashed)"
vars = p_tiled; titles = "tile-8 tile-16 tile-32 in-place-16×16 in-place-32×8 in-place-32×32"; styles = "2 3 4 13 15 14"
@panel

unset multiplot
