# Draws the benchmark chart: µs per actor per Crowd::update against actors.
# gnuplot -e "DATA='series.dat'; PLOT='series.gp'; OUT='benchmark.png'; SUBTITLE='...'" bench_chart.gp
# DATA and PLOT come from scripts/bench_series.py; scripts/bench.sh runs both.
set terminal pngcairo size 1000,820 enhanced font "sans,11"
set output OUT
set title "Crowd::update: wall time per actor per frame\n{/*0.8 ".SUBTITLE."}"
# Actors span 1 to 10,000 and per-actor cost spans fixed per-frame overhead to sub-µs, so both
# axes are logarithmic; a flat line means cost linear in actors.
set logscale x 10
set logscale y 10
set xrange [0.7:14000]
set xlabel "actors"
set ylabel "µs per actor (lower is better)"
set format x "10^{%T}"
set grid xtics ytics mytics
set key outside below center horizontal maxcols 3 font ",10" width 2
load PLOT
