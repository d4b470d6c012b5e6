# Experiment 09: sort time against matrix size (elements), one curve per sort and element type.
# Called by scripts/build-report with csv, summary and outdir set.
set datafile separator comma
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
# Rows of one (variant, type), as points joined in the CSV's size order.
plot for [v in variants] for [t in types] csv using \
  ((strcol(2) eq v && strcol(3) eq t) ? $5 * $6 : NaN):((strcol(2) eq v && strcol(3) eq t) ? $11 : NaN) \
  smooth unique with linespoints title sprintf("%s, %s", v[10:], t)
