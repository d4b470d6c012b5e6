# Experiment 08 figures, called by scripts/build-report:
#   gnuplot -e "csv='A.csv'; summary='A-summary.csv'; outdir='DIR'" experiments/08-host-to-host/plot.gp
# 08's CSV has its own columns (case, memory, api, phase, order, streams, block, ...; see
# experiments/08-host-to-host/main.cpp). Writes
#   DIR/08-host-to-host-breakdown.svg: for each shape of the run, one stacked bar per memory
#     kind and copy API: the median times of the H2D, kernel and D2H phases (case breakdown),
#     with the median of the whole sequence (phase total) marked;
#   DIR/08-host-to-host-pipeline.svg: for each shape, the streamed pipeline as a percentage of
#     the pinned copies in both directions at once (the summary's pct-of-pinned-copies,
#     computed by the experiment) against the number of streams, one curve per block shape,
#     depth-first solid and breadth-first dashed, and as level lines the best mapped (zero-copy)
#     kernel (it has no streams), the best copy-in configuration (copies in, the kernel
#     storing into the host output; subjects "copy-in/...") and the SMs' plain copy over the
#     bus (subject "sm-copy"), the ceiling of the zero-copy kernels.
# Shapes, block shapes and stream counts come from the data; absent ones are left out and a
# panel with nothing to draw says so.

# No apostrophes inside blocks that expand @macros: gnuplot's macro scanner takes them for quotes.
if (!exists("csv") || !exists("outdir")) {
  print "plot.gp: pass -e \"csv='...'; outdir='...'\""
  exit status 2
}
name = "08-host-to-host"
if (!exists("summary")) { summary = "" }

set datafile separator comma
set datafile columnheaders

configs = "pageable/memcpy pageable/memcpyAsync pinned/memcpy pinned/memcpyAsync managed/on-demand managed/prefetch"
config_labels = "\"pageable\\nmemcpy\" \"pageable\\nmemcpyAsync\" \"pinned\\nmemcpy\" \"pinned\\nmemcpyAsync\" \"managed\\non demand\" \"managed\\nprefetch\""
nc = words(configs)
phases = "h2d kernel d2h"
orders = "depth-first breadth-first"

mem_of(c) = c[1:strstrt(c, "/") - 1]
api_of(c) = c[strstrt(c, "/") + 1:]
rows_of(s) = s[1:strstrt(s, "x") - 1] + 0
cols_of(s) = s[strstrt(s, "x") + 1:] + 0
shape_label(s) = sprintf("%d × %d", rows_of(s), cols_of(s))
is_bd(c, ph, r, cc) = strcol("case") eq "breakdown" && strcol("memory") eq mem_of(c) && strcol("api") eq api_of(c) && \
                      strcol("phase") eq ph && column("rows") == r && column("cols") == cc

# ---- statistics first (they obey ranges and log scales) ---------------------------------------
# Shapes of the breakdown (run order), from its pinned memcpy total rows.
bshapes = ""
stats csv using ((strcol("case") eq "breakdown" && strcol("phase") eq "total" && strcol("memory") eq "pinned" && \
                  strcol("api") eq "memcpy") ? (bshapes = bshapes . sprintf(" %dx%d", column("rows"), column("cols")), 1) : 0) nooutput

# $B_<k>: per shape k, one line per configuration: "x h2d kernel d2h total" in milliseconds
# (a phase the configuration does not have is 0; a configuration not run is left out).
bhi = 0
do for [k = 1:words(bshapes)] {
  r = rows_of(word(bshapes, k)); c = cols_of(word(bshapes, k))
  eval sprintf("set print $B_%d", k)
  do for [j = 1:nc] {
    cf = word(configs, j)
    stats csv using (is_bd(cf, "total", r, c) ? 1 : 0):(is_bd(cf, "total", r, c) ? column("median_s") : 0) nooutput
    if (STATS_sum_x > 0) {
      tot = 1e3 * STATS_sum_y
      line = sprintf("%d", j)
      sum = 0
      do for [ph in phases] {
        stats csv using (is_bd(cf, ph, r, c) ? 1 : 0):(is_bd(cf, ph, r, c) ? column("median_s") : 0) nooutput
        v = (STATS_sum_x > 0 ? 1e3 * STATS_sum_y : 0)
        sum = sum + v
        line = line . sprintf(" %g", v)
      }
      print line . sprintf(" %g", tot)
      bhi = (sum > bhi ? sum : bhi); bhi = (tot > bhi ? tot : bhi)
    }
  }
  unset print
}

# Pipeline: subjects are "ORDER/sN/bRxC". Shapes from the summary rows; per shape the block
# shapes (first appearance) and the stream counts.
is_pct(dummy) = strcol("metric") eq "pct-of-pinned-copies"
# Kinds with no stream axis, drawn per shape as a level at their best configuration:
# subject prefix, line colour, dash type and legend title of each.
levels = "mapped/ copy-in/ sm-copy"
level_colors = "#000000 #7b3294 #1a9850"
level_dts = "4 5 3"
level_title_1 = "mapped (zero copy), best kernel"
level_title_2 = "copies in, kernel stores out: best"
level_title_3 = "SM copy, no transposing (zero copy's ceiling)"
is_level(prefix) = is_pct(0) && strstrt(strcol("subject"), prefix) == 1
# Pipelines are the rows whose subject starts with an issue order (ORDER/sN/bRxC).
is_pipe(dummy) = is_pct(0) && (strstrt(strcol("subject"), "depth-first/") == 1 || strstrt(strcol("subject"), "breadth-first/") == 1)
subj_order(s) = s[1:strstrt(s, "/") - 1]
subj_rest(s) = s[strstrt(s, "/") + 2:]
subj_streams(s) = subj_rest(s)[1:strstrt(subj_rest(s), "/") - 1] + 0
subj_block(s) = subj_rest(s)[strstrt(subj_rest(s), "/") + 2:]
pshapes = ""
if (summary ne "") {
  stats summary using ((is_pipe(0) && strstrt(pshapes . " ", sprintf(" %dx%d ", column("rows"), column("cols"))) == 0) ? \
                       (pshapes = pshapes . sprintf(" %dx%d", column("rows"), column("cols")), 1) : 0) nooutput
}
phi = 100
smax = 1
have_p = " "
do for [k = 1:words(pshapes)] {
  r = rows_of(word(pshapes, k)); c = cols_of(word(pshapes, k))
  here(dummy) = is_pipe(0) && column("rows") == r && column("cols") == c
  blocks = ""; streams = ""
  stats summary using ((here(0) && strstrt(blocks . " ", " " . subj_block(strcol("subject")) . " ") == 0) ? \
                       (blocks = blocks . " " . subj_block(strcol("subject")), 1) : 0) nooutput
  stats summary using ((here(0) && strstrt(streams . " ", sprintf(" %d ", subj_streams(strcol("subject")))) == 0) ? \
                       (streams = streams . sprintf(" %d", subj_streams(strcol("subject"))), 1) : 0) nooutput
  eval sprintf("blocks_%d = blocks", k)
  # level_<kind>_<shape>: the best configuration of each level kind at this shape (0: none).
  do for [v = 1:words(levels)] {
    lk(dummy) = is_level(word(levels, v)) && column("rows") == r && column("cols") == c
    stats summary using (lk(0) ? 1 : 0):(lk(0) ? column("value") : 0) nooutput
    best = 0
    if (STATS_sum_x > 0) {
      stats summary using (lk(0) ? column("value") : NaN) nooutput
      best = STATS_max
    }
    eval sprintf("level_%d_%d = %g", v, k, best)
    phi = (best > phi ? best : phi)
  }
  # $P_<k>: "block-index order-index streams percent", by streams within each curve.
  eval sprintf("set print $P_%d", k)
  do for [b = 1:words(blocks)] {
    do for [o = 1:2] {
      do for [i = 1:words(streams)] {
        n = word(streams, i) + 0
        want = sprintf("%s/s%d/b%s", word(orders, o), n, word(blocks, b))
        stats summary using ((here(0) && strcol("subject") eq want) ? 1 : 0):((here(0) && strcol("subject") eq want) ? column("value") : 0) nooutput
        if (STATS_sum_x > 0) {
          print sprintf("%d %d %d %g", b, o, n, STATS_sum_y)
          phi = (STATS_sum_y > phi ? STATS_sum_y : phi)
          smax = (n > smax ? n : smax)
          have_p = have_p . sprintf("%d@%d@%d ", k, b, o)
        }
      }
    }
  }
  unset print
}
has_p(k, b, o) = strstrt(have_p, sprintf(" %d@%d@%d ", k, b, o)) > 0

# ---- styles -------------------------------------------------------------------------------
set style line 1 lc rgb "#1b6ca8"
set style line 2 lc rgb "#d95f02"
set style line 3 lc rgb "#1b9e77"
set style line 9 lc rgb "#e5e5e5" lw 0.8
set style line 20 lc rgb "#444444" lw 1.2 dt 3
set style line 21 lc rgb "#444444" lw 1.0 dt 2
set datafile nocolumnheaders
set datafile separator whitespace

nodata = 'set label 99 "no data in this run" at graph 0.5, 0.5 center; set key off; unset xtics; unset ytics; '.\
  'plot [1:2][1:2] 3 notitle; unset label 99; set key on; set xtics; set ytics'

# ---- figure 1: breakdown --------------------------------------------------------------------
nb = words(bshapes)
set terminal svg size (nb > 1 ? 1100 : 760),600 dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/" . name . "-breakdown.svg"
set style fill solid 0.95 border lc rgb "#ffffff"
set boxwidth 0.7
set grid ytics ls 9
set ylabel "median time (ms)"
set yrange [0 : (bhi > 0 ? bhi * 1.25 : 1)]   # room for the key
set xrange [0.4 : nc + 0.6]
set xtics () scale 0 font ",9"
do for [j = 1:nc] { eval sprintf("set xtics add (\"%s\" %d)", word(config_labels, j), j) }
set key top left Left reverse font ",10" samplen 1.5 opaque box lc rgb "#cccccc"
set multiplot layout 1, (nb > 1 ? nb : 1) title "Where the time goes: H2D copy, kernel and D2H copy (stacked medians)" font ",13" \
  margins (nb > 1 ? 0.07 : 0.11), 0.98, 0.12, 0.86 spacing 0.07
if (nb == 0) {
  set title "breakdown"
  @nodata
}
do for [k = 1:nb] {
  set title sprintf("float, %s", shape_label(word(bshapes, k))) font ",12"
  first = (k == 1)
  if (!first) { set key off }
  eval sprintf("plot $B_%d using 1:($2 + $3 + $4) with boxes ls 3 title (first ? \"D2H\" : \"\"), "  .\
               "     $B_%d using 1:($2 + $3) with boxes ls 2 title (first ? \"kernel\" : \"\"), " .\
               "     $B_%d using 1:2 with boxes ls 1 title (first ? \"H2D\" : \"\"), " .\
               "     $B_%d using 1:5 with points pt 2 ps 1.3 lc rgb \"#000000\" title (first ? \"median of the whole sequence\" : \"\")", k, k, k, k)
}
unset multiplot

# ---- figure 2: pipeline against streams ---------------------------------------------------------
reset
set datafile separator whitespace
set style line 9 lc rgb "#e5e5e5" lw 0.8
set style line 20 lc rgb "#444444" lw 1.2 dt 3
set style line 21 lc rgb "#b22222" lw 1.0 dt 2
colors = "#1b6ca8 #d95f02 #1b9e77 #7570b3 #b8860b #e7298a #666666 #66a61e"
pts = "7 5 9 13 11 15 3 1"
np = words(pshapes)
set terminal svg size (np > 1 ? 1100 : 760),640 dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/" . name . "-pipeline.svg"
set grid xtics ytics ls 9, ls 9
set xlabel "streams"
set ylabel "% of the pinned copies, both directions at once"
set xrange [0.7 : smax + 0.3]
set xtics 1
set yrange [0 : phi * 1.08]
set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead ls 20 back
set label 1 "pinned H2D and D2H at once" at graph 0.02, first 100 offset 0, 0.6 font ",9" tc rgb "#444444"
set arrow 2 from graph 0, first 90 to graph 1, first 90 nohead ls 21 back
set label 2 "goal" at graph 0.02, first 90 offset 0, -0.7 font ",9" tc rgb "#b22222"
set key bottom right font ",9" samplen 3 spacing 1.05 opaque box lc rgb "#cccccc" width 1
set multiplot layout 1, (np > 1 ? np : 1) title "The streamed pipeline against the pinned copies in both directions\n(solid: depth-first, dashed: breadth-first issue order)" font ",13" \
  margins (np > 1 ? 0.07 : 0.11), 0.98, 0.1, 0.84 spacing 0.07
if (np == 0) {
  set title "pipeline"
  @nodata
}
do for [k = 1:np] {
  set title sprintf("float, %s", shape_label(word(pshapes, k))) font ",12"
  eval sprintf("blocks = blocks_%d", k)
  cmd = ""
  do for [b = 1:words(blocks)] {
    do for [o = 1:2] {
      if (!has_p(k, b, o)) { continue }
      cmd = cmd . (cmd eq "" ? "" : ", ") . \
        sprintf("$P_%d using (($1 == %d && $2 == %d) ? $3 : NaN):4 with linespoints lc rgb \"%s\" lw 1.6 dt %d pt %d ps 0.8 title \"%s\"", \
                k, b, o, word(colors, (b - 1) % 8 + 1), o == 1 ? 1 : 2, word(pts, (b - 1) % 8 + 1) + (o == 1 ? 0 : -1), \
                o == 1 ? sprintf("block %s", word(blocks, b)) : "")
    }
  }
  do for [v = 1:words(levels)] {
    m = value(sprintf("level_%d_%d", v, k))
    if (m > 0) {
      cmd = cmd . (cmd eq "" ? "" : ", ") . sprintf("%g with lines lc rgb \"%s\" lw 2 dt %s title \"%s\"", \
            m, word(level_colors, v), word(level_dts, v), value(sprintf("level_title_%d", v)))
    }
  }
  if (cmd eq "") { @nodata } else { eval "plot " . cmd }
}
unset multiplot
