# WebSearch flow sizes: a cumulative distribution, one "size_bytes cumulative_percent" per line,
# read with linear interpolation between the points.
# Source: HPCC's simulator, alibaba-edu/High-Precision-Congestion-Control,
# traffic_gen/WebSearch_distribution.txt (the same numbers, these comment lines added).
# The workload was measured in a web-search cluster and published with DCTCP: Alizadeh et al.,
# "Data Center TCP (DCTCP)", SIGCOMM 2010. Mean 1,711,250 B.
0 0
10000 15
20000 20
30000 30
50000 40
80000 53
200000 60
1000000 70
2000000 80
5000000 90
10000000 97
30000000 100
