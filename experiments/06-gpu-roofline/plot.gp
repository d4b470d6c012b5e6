# Experiment 06 figures, called by scripts/build-report:
#   gnuplot -e "csv='A.csv'; summary='A-summary.csv'; outdir='DIR'" experiments/06-gpu-roofline/plot.gp
# writes DIR/06-gpu-roofline-families.svg: for every shape of the run (in the run's order:
# squares, then rectangles), the fastest kernel of each family, cuBLAS and the copy kernel as a
# percentage of memcpy at the same shape and element type; one panel per element type.
# The values are the summary's best-of-family bandwidths (computed by the experiment), each
# divided by the memcpy row of the same shape. Shapes, families and types come from the data:
# a family absent at a shape (in place on a rectangle) leaves a gap, a type absent a "no
# data" panel.

# No apostrophes inside blocks that expand @macros: gnuplot's macro scanner takes them for quotes.
if (!exists("csv") || !exists("outdir")) {
  print "plot.gp: pass -e \"csv='...'; outdir='...'\""
  exit status 2
}
name = "06-gpu-roofline"
if (!exists("summary")) { summary = "" }

set datafile separator comma
set datafile columnheaders

types = "float double"
families = "gpu-naive gpu-tiled gpu-unrolled gpu-inplace-naive gpu-inplace-tiled peer-cublas peer-copy"
family_titles = 'naive tiled unrolled "in-place naive" "in-place tiled" "cuBLAS geam" "copy kernel"'
nf = words(families)
gap = nf + 2   # x distance between two shapes

best(f, t, r, c) = strcol("metric") eq "best-of-family" && strcol("subject") eq f && strcol("dtype") eq t && \
                   column("rows") == r && column("cols") == c
is_mem(t) = strcol("metric") eq "best-of-family" && strcol("subject") eq "peer-memcpy" && strcol("dtype") eq t

# Everything is computed before plotting (stats obeys ranges): per type, the shapes memcpy
# was run at (run order) and, per shape and family, the percentage, printed into a datablock
# $P_<type> as "x,percent,family-index" (no header line: read with nocolumnheaders).
hi = 100
set print $P_float
set print $P_double
unset print
shapes_float = ""; shapes_double = ""
do for [t in types] {
  shapes = ""
  if (summary ne "") {
    stats summary using (is_mem(t) ? (shapes = shapes . sprintf(" %dx%d", column("rows"), column("cols")), 1) : 0) nooutput
  }
  if (t eq "float") { shapes_float = shapes } else { shapes_double = shapes }
  eval "set print $P_" . t
  do for [k = 1:words(shapes)] {
    s = word(shapes, k)
    r = s[1:strstrt(s, "x") - 1] + 0
    c = s[strstrt(s, "x") + 1:] + 0
    stats summary using (is_mem(t) && column("rows") == r && column("cols") == c ? column("value") : 0) nooutput
    m = STATS_sum
    do for [fi = 1:nf] {
      f = word(families, fi)
      stats summary using (best(f, t, r, c) ? 1 : 0):(best(f, t, r, c) ? column("value") : 0) nooutput
      if (STATS_sum_x > 0 && m > 0) {
        p = 100 * STATS_sum_y / m
        hi = (p > hi ? p : hi)
        print sprintf("%g,%g,%d", (k - 1) * gap + fi, p, fi)
      }
    }
  }
  unset print
}

# "16384x16384" -> "16384²"; rectangles stay "r×c".
shape_label(s) = (s[1:strstrt(s, "x") - 1] eq s[strstrt(s, "x") + 1:]) ? s[1:strstrt(s, "x") - 1] . "²" : \
                 s[1:strstrt(s, "x") - 1] . "×" . s[strstrt(s, "x") + 1:]

nshapes = words(shapes_float) > words(shapes_double) ? words(shapes_float) : words(shapes_double)
set terminal svg size (nshapes > 4 ? 110 * nshapes + 200 : 700),760 dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/" . name . "-families.svg"

set style line 1 lc rgb "#1b6ca8"
set style line 2 lc rgb "#d95f02"
set style line 3 lc rgb "#b8860b"
set style line 4 lc rgb "#9e9ac8"
set style line 5 lc rgb "#fdae6b"
set style line 6 lc rgb "#1b9e77"
set style line 7 lc rgb "#999999"
set style line 20 lc rgb "#444444" lw 1.2 dt 3
set style line 9 lc rgb "#e5e5e5" lw 0.8
set grid ytics ls 9
set style fill solid 0.95 border lc rgb "#ffffff"
set boxwidth 0.9
set yrange [0 : hi * 1.08]
set ylabel "% of memcpy (same shape and type)"
set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead ls 20 front
set key at screen 0.5, 0.925 center center horizontal maxrows 1 font ",10" samplen 1.2 width 1

nodata = 'set label 99 "no data in this run" at graph 0.5, 0.5 center; unset xtics; '.\
  'plot [1:2][1:2] 3 notitle; unset label 99'

set multiplot layout 2, 1 title "Fastest kernel of each family, cuBLAS and a copy kernel, as a percentage of memcpy (dotted line)" font ",13" \
  margins 0.08, 0.98, 0.07, 0.85 spacing 0.1, 0.12
set datafile nocolumnheaders
first = 1
do for [t in types] {
  shapes = (t eq "float" ? shapes_float : shapes_double)
  set title t . " (matrix shape rows × cols; n² is n × n)" font ",11"
  if (words(shapes) > 0) {
    set xrange [0 : words(shapes) * gap - 1]
    set xtics () scale 0 font ",10"
    do for [k = 1:words(shapes)] {
      eval sprintf("set xtics add (\"%s\" %g)", shape_label(word(shapes, k)), (k - 1) * gap + (nf + 1) / 2.0)
    }
    eval "plot for [fi = 1:nf] $P_" . t . " using ($3 == fi ? $1 : NaN):2 with boxes ls fi title (first ? word(family_titles, fi) : \"\")"
    first = 0
  } else {
    @nodata
  }
}
unset multiplot
