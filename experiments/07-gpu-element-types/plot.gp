# Experiment 07 figures, called by scripts/build-report:
#   gnuplot -e "csv='A.csv'; summary='A-summary.csv'; outdir='DIR'" experiments/07-gpu-element-types/plot.gp
# writes
#   DIR/07-gpu-element-types-elemsize.svg: each kernel's bandwidth as a percentage of memcpy's
#     (same shape and type) against the element size, at the square shape of the aspect-ratio
#     family (the largest square whose side is a power of two: 4096 x 4096 in a full run);
#   DIR/07-gpu-element-types-aspect.svg: the same percentage against the aspect ratio rows/cols
#     over the shapes with as many elements as that square, one panel for float, one for uint8.
# The percentages are the summary's pct-of-gpu/memcpy rows, computed by the experiment. Shapes
# come from the data, so a quick run (smaller family) plots too; curves with no rows are left
# out and a panel with none says so.

# No apostrophes inside blocks that expand @macros: gnuplot's macro scanner takes them for quotes.
if (!exists("csv") || !exists("outdir")) {
  print "plot.gp: pass -e \"csv='...'; outdir='...'\""
  exit status 2
}
name = "07-gpu-element-types"
if (!exists("summary")) { summary = "" }

set datafile separator comma
set datafile columnheaders

kernels = "gpu/naive-rowread/b16 gpu/tiled/t8-swizzle gpu/tiled/t16-swizzle gpu/tiled/t32-pad gpu/tiled/t32-swizzle gpu/cublas-geam gpu/copy-kernel"
kernel_titles = "naive-rowread/b16 tiled/t8-swizzle tiled/t16-swizzle tiled/t32-pad tiled/t32-swizzle \"cuBLAS geam\" copy-kernel"
nk = words(kernels)
open_points = "6 8 4 10 12 14 2"   # the open counterpart of each kernel's point type
# Element types in order of size; int32 and float are both 4 bytes: the curves go through
# float (the type cuBLAS also has), int32 is drawn as open marks without a line.
curve_types = "uint8 uint16 float double complex128"
bytes_of(t) = t eq "uint8" ? 1 : t eq "uint16" ? 2 : t eq "int32" ? 4 : t eq "float" ? 4 : \
              t eq "double" ? 8 : t eq "complex128" ? 16 : NaN

is_pct(dummy) = strcol("metric") eq "pct-of-gpu/memcpy"
pow2(x) = x >= 1 && int(x) == x && (int(x) & (int(x) - 1)) == 0
at(v, t, r, c) = is_pct(0) && strcol("subject") eq v && strcol("dtype") eq t && column("rows") == r && column("cols") == c

# ---- statistics first (they obey ranges and log scales) ---------------------------------------
# The square: the largest power-of-two side with rows == cols. The family: its element count.
sq = 0
if (summary ne "") {
  stats summary using ((is_pct(0) && column("rows") == column("cols") && pow2(column("rows"))) ? 1 : 0) nooutput
  if (STATS_sum > 0) {
    stats summary using ((is_pct(0) && column("rows") == column("cols") && pow2(column("rows"))) ? column("rows") : NaN) nooutput
    sq = STATS_max
  }
}
family = sq * sq

# Shapes of the family in the run, as " RxC" words (run order), from the memcpy rows of float.
shapes = ""
if (sq > 0) {
  stats summary using ((is_pct(0) && strcol("subject") eq "gpu/memcpy" && strcol("dtype") eq "float" && \
                        column("rows") * column("cols") == family) ? \
                       (shapes = shapes . sprintf(" %dx%d", column("rows"), column("cols")), 1) : 0) nooutput
}
rows_of(s) = s[1:strstrt(s, "x") - 1] + 0
cols_of(s) = s[strstrt(s, "x") + 1:] + 0

# $E: "kernel-index bytes percent" at the square, curve types in order of size; $I: int32.
hi = 100
set print $E
set print $I
unset print
set print $E
if (sq > 0) {
  do for [k = 1:nk] {
    do for [t in curve_types] {
      stats summary using (at(word(kernels, k), t, sq, sq) ? 1 : 0):(at(word(kernels, k), t, sq, sq) ? column("value") : 0) nooutput
      if (STATS_sum_x > 0) {
        print sprintf("%d %g %g", k, bytes_of(t), STATS_sum_y)
        hi = (STATS_sum_y > hi ? STATS_sum_y : hi)
      }
    }
    print ""
    print ""
  }
}
unset print
have_i = " "
set print $I
if (sq > 0) {
  do for [k = 1:nk] {
    stats summary using (at(word(kernels, k), "int32", sq, sq) ? 1 : 0):(at(word(kernels, k), "int32", sq, sq) ? column("value") : 0) nooutput
    if (STATS_sum_x > 0) { print sprintf("%d 4 %g", k, STATS_sum_y); have_i = have_i . k . " " }
  }
}
unset print
# Which kernels have points at the square (curves only for those).
have_e = " "
if (sq > 0) {
  do for [k = 1:nk] {
    stats summary using ((is_pct(0) && strcol("subject") eq word(kernels, k) && column("rows") == sq && column("cols") == sq) ? 1 : 0) nooutput
    if (STATS_sum > 0) { have_e = have_e . k . " " }
  }
}
has_e(k) = strstrt(have_e, " " . k . " ") > 0
has_i(k) = strstrt(have_i, " " . k . " ") > 0

# $A_<type>: "kernel-index ratio percent" over the family, for float and uint8.
aspect_types = "float uint8"
have_a = " "
do for [t in aspect_types] {
  eval "set print $A_" . t
  do for [k = 1:nk] {
    n = 0
    do for [j = 1:words(shapes)] {
      r = rows_of(word(shapes, j)); c = cols_of(word(shapes, j))
      stats summary using (at(word(kernels, k), t, r, c) ? 1 : 0):(at(word(kernels, k), t, r, c) ? column("value") : 0) nooutput
      if (STATS_sum_x > 0) {
        print sprintf("%d %g %g", k, 1.0 * r / c, STATS_sum_y)
        hi = (STATS_sum_y > hi ? STATS_sum_y : hi)
        n = n + 1
      }
    }
    if (n > 0) { have_a = have_a . t . "@" . k . " " }
    print ""
    print ""
  }
  unset print
}
has_a(t, k) = strstrt(have_a, " " . t . "@" . k . " ") > 0

# ---- styles -------------------------------------------------------------------------------
# Blue: naive; orange, brown, purple: the tiled kernels; green: cuBLAS; grey: the copy kernel.
set style line 1 lc rgb "#1b6ca8" lw 1.8 pt 7 ps 0.8
set style line 2 lc rgb "#fdae6b" lw 1.8 pt 9 ps 0.8
set style line 3 lc rgb "#d95f02" lw 2.2 pt 5 ps 0.8
set style line 4 lc rgb "#8c510a" lw 1.8 dt 2 pt 11 ps 0.9
set style line 5 lc rgb "#7570b3" lw 1.8 pt 13 ps 0.9
set style line 6 lc rgb "#1b9e77" lw 2.0 pt 15 ps 0.8
set style line 7 lc rgb "#777777" lw 1.6 dt 4 pt 3 ps 0.8
set style line 20 lc rgb "#444444" lw 1.2 dt 3
set style line 9 lc rgb "#e5e5e5" lw 0.8
set grid xtics ytics ls 9, ls 9
set datafile nocolumnheaders
set datafile separator whitespace

nodata = 'set label 99 "no data in this run" at graph 0.5, 0.5 center; set key off; '.\
  'unset logscale; unset x2tics; unset xtics; unset ytics; set xlabel ""; '.\
  'plot [1:2][1:2] 3 notitle; unset label 99; set key on; set xtics; set ytics'

# ---- figure 1: against element size --------------------------------------------------------
set terminal svg size 860,560 dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/" . name . "-elemsize.svg"
set title (sq > 0 ? sprintf("Bandwidth as a percentage of memcpy against element size, %d × %d matrix", sq, sq) : \
           "Bandwidth as a percentage of memcpy against element size") font ",13"
set logscale x 2
set xrange [0.8 : 20]
set xtics ("1\nuint8" 1, "2\nuint16" 2, "4\nint32, float" 4, "8\ndouble" 8, "16\ncomplex128" 16) font ",10"
set xlabel "element size (bytes)" offset 0, -0.8
set ylabel "% of memcpy (same shape and type)"
set yrange [0 : hi * 1.08]
set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead ls 20 back
set label 2 "memcpy" at graph 0.01, first 100 offset 0, 0.6 font ",9" tc rgb "#444444"
set key outside right center vertical Left reverse font ",10" samplen 2.5 spacing 1.2 width 1
cmd = ""
do for [k = 1:nk] {
  if (has_e(k)) {
    cmd = cmd . (cmd eq "" ? "" : ", ") . sprintf("$E using ($1 == %d ? $2 : NaN):3 with linespoints ls %d title \"%s\" noenhanced", k, k, word(kernel_titles, k))
    if (has_i(k)) {
      cmd = cmd . sprintf(", $I using ($1 == %d ? $2 * 1.06 : NaN):3 with points ls %d pt %d notitle", k, k, word(open_points, k) + 0)
    }
  }
}
if (cmd eq "") { @nodata } else {
  set label 3 "open marks: int32, drawn just right of 4 bytes" at graph 0.99, graph 0.04 right font ",9" tc rgb "#555555"
  eval "plot " . cmd
}
unset label 2
unset label 3
unset arrow 1

# ---- figure 2: against aspect ratio, float and uint8 ----------------------------------------
set terminal svg size 1100,620 dynamic enhanced font "Helvetica,12" background "white"
set output outdir . "/" . name . "-aspect.svg"
set xtics auto font ",10"
set format x "2^{%L}"
set xlabel "aspect ratio rows / cols (input matrix)"
unset xrange
# The shapes themselves along the top (set again for each panel: a no-data panel removes them).
x2setup = 'unset x2tics; '
if (words(shapes) > 0) {
  rlo = 1e300; rhi = 0
  do for [j = 1:words(shapes)] {
    x = 1.0 * rows_of(word(shapes, j)) / cols_of(word(shapes, j))
    rlo = (x < rlo ? x : rlo); rhi = (x > rhi ? x : rhi)
  }
  set xrange [rlo / 1.6 : rhi * 1.6]
  set x2range [rlo / 1.6 : rhi * 1.6]
  x2setup = 'set x2tics () font ",8" rotate by 30 left; set logscale x2 2; '
  do for [j = 1:words(shapes)] {
    s = word(shapes, j)
    x2setup = x2setup . sprintf("set x2tics add (\"%d×%d\" %g); ", rows_of(s), cols_of(s), 1.0 * rows_of(s) / cols_of(s))
  }
}
# One key for both panels, under the title; each kernel is titled in the first panel that has it.
set key at screen 0.5, 0.845 center center horizontal maxcols 4 font ",10" samplen 2.5 width 1
titled = " "
set multiplot layout 1, 2 title (sq > 0 ? sprintf("Bandwidth as a percentage of memcpy against the aspect ratio, shapes of 2^{%d} elements", int(log(family) / log(2) + 0.5)) : \
                                 "Bandwidth as a percentage of memcpy against the aspect ratio") font ",13" \
  margins 0.07, 0.96, 0.11, 0.66 spacing 0.08
do for [t in aspect_types] {
  set title t font ",12" offset 0, 0.4
  set logscale x 2
  set xlabel "aspect ratio rows / cols (input matrix)"
  @x2setup
  set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead ls 20 back
  cmd = ""
  do for [k = 1:nk] {
    if (has_a(t, k)) {
      first = strstrt(titled, " " . k . " ") == 0
      if (first) { titled = titled . k . " " }
      cmd = cmd . (cmd eq "" ? "" : ", ") . sprintf("$A_%s using ($1 == %d ? $2 : NaN):3 with linespoints ls %d title \"%s\" noenhanced", t, k, k, first ? word(kernel_titles, k) : "")
    }
  }
  if (cmd eq "") { @nodata } else { eval "plot " . cmd }
}
unset multiplot
