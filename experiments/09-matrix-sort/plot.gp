# Experiment 09: sort time against matrix size (elements), one curve per sort and element type.
# Called by scripts/build-report with csv, summary and outdir set.
set datafile separator comma
set datafile columnheaders
set terminal svg size 900,420 dynamic enhanced font "Helvetica,12"
set output outdir . "/09-matrix-sort-time.svg"
set key top left
set logscale xy
set xlabel "elements (rows x cols)"
set ylabel "median time (s)"
set grid
set title "Row-and-column matrix sort on the CPU"
variants = "cpu/sort-sequential cpu/sort-threaded cpu/sort-seed-loop"
types = "int32 float double"
# Rows of one (variant, type), one point per size (rows of other curves are NaN, which would break
# a line between the points, so none is drawn).
plot for [v in variants] for [t in types] csv using \
  ((strcol("variant") eq v && strcol("dtype") eq t) ? column("rows") * column("cols") : NaN):\
  ((strcol("variant") eq v && strcol("dtype") eq t) ? column("median_s") : NaN) \
  with points ps 1.2 title sprintf("%s, %s", v[10:], t)
