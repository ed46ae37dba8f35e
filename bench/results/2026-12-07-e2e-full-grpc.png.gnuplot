set terminal pngcairo size 1200,1200 font ",10"
set output '2026-12-07-e2e-grpc.png'
set datafile missing 'NaN'
set key outside right
set grid
set xlabel 'seconds (each phase on a fresh flowagg run, one after the other)'
set xrange [0.993:427.54699999999997]
set multiplot layout 4,1 title 'flowagg run end to end over grpc: 6 Agents as fast as taken, then 5000 records/s for 300 s'
set ylabel 'records/s, over 5 s'
plot '2026-12-07-e2e-grpc.png.tsv' using 1:2 with lines title 'ingest wrote to flows.raw', '2026-12-07-e2e-grpc.png.tsv' using 1:3 with lines title 'processor read', '2026-12-07-e2e-grpc.png.tsv' using 1:4 with lines title 'exporter delivered', '2026-12-07-e2e-grpc.png.tsv' using 1:5 with lines title 'collector received'
set ylabel 'latency (s), 5-s windows'
plot '2026-12-07-e2e-grpc.png.tsv' using 1:6 with lines title 'p50 Agent send to collector', '2026-12-07-e2e-grpc.png.tsv' using 1:7 with lines title 'p99'
set ylabel 'lag (records)'
plot '2026-12-07-e2e-grpc.png.tsv' using 1:8 with lines title 'ingest queue', '2026-12-07-e2e-grpc.png.tsv' using 1:9 with lines title 'processor (flows.raw unread)', '2026-12-07-e2e-grpc.png.tsv' using 1:10 with lines title 'exporter (flows.processed)'
set ylabel 'RSS (MiB)'
plot '2026-12-07-e2e-grpc.png.tsv' using 1:11 with lines title 'flowagg run'
unset multiplot
