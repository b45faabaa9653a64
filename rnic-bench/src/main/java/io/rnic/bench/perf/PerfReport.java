package io.rnic.bench.perf;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;

/**
 * perftest's result tables: the bandwidth table ({@code #bytes #iterations BW peak BW average
 * MsgRate}) with BW in MB/s (2^20 bytes) or, with {@code --report_gbits}, Gb/s (10^9 bits); and
 * the latency table in microseconds, whose typical value is the median. With {@code --json} each
 * row is one JSON object on its own line instead.
 */
final class PerfReport {
    private static final String RULE =
            "---------------------------------------------------------------------------------------";
    private final PrintStream out;
    private final boolean gbits;
    private final boolean json;
    private final String test;
    private boolean headerDone;

    PerfReport(PrintStream out, String test, boolean gbits, boolean json) {
        this.out = out;
        this.test = test;
        this.gbits = gbits;
        this.json = json;
    }

    /** One bandwidth row: {@code messages} of {@code size} bytes in {@code nanos}; peak over the best window. */
    void bandwidth(int size, long messages, long nanos, double peakBytesPerSecond, double packetsPerSecond) {
        double avg = messages * (double) size / (nanos / 1e9);
        double peak = Math.max(avg, peakBytesPerSecond);
        double msgRate = messages / (nanos / 1e9) / 1e6;
        if (json) {
            out.printf(Locale.ROOT, "{\"test\":\"%s\",\"bytes\":%d,\"iterations\":%d,\"bw_peak_%s\":%.2f,"
                            + "\"bw_avg_%s\":%.2f,\"msg_rate_mpps\":%.6f,\"packets_per_second\":%.0f}%n",
                    test, size, messages, unit(), scale(peak), unit(), scale(avg), msgRate, packetsPerSecond);
            return;
        }
        header();
        out.printf(Locale.ROOT, " %-7d    %-7d          %-7.2f            %-7.2f\t\t   %-7.6f%n",
                size, messages, scale(peak), scale(avg), msgRate);
    }

    /**
     * One bandwidth row as a peer reported it (perftest's {@code bw_report_data}): MB/s (2^20
     * bytes, or Gb/s with {@code --report_gbits}) and millions of messages per second.
     */
    void reported(long size, long iterations, double peak, double avg, double msgRate) {
        if (json) {
            out.printf(Locale.ROOT, "{\"test\":\"%s\",\"bytes\":%d,\"iterations\":%d,\"bw_peak_%s\":%.2f,"
                    + "\"bw_avg_%s\":%.2f,\"msg_rate_mpps\":%.6f}%n", test, size, iterations, unit(), peak, unit(), avg,
                    msgRate);
            return;
        }
        if (!headerDone) {
            header();
        }
        out.printf(Locale.ROOT, " %-7d    %-7d          %-7.2f            %-7.2f\t\t   %-7.6f%n",
                size, iterations, peak, avg, msgRate);
    }

    /** The bandwidth table's header, printed once. */
    void header() {
        if (headerDone || json) {
            return;
        }
        headerDone = true;
        String u = gbits ? "Gb/sec" : "MB/sec";
        out.println(RULE);
        out.printf(" #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]%n", u, u);
    }

    /** Bytes per second in the table's unit. */
    double inUnit(double bytesPerSecond) {
        return scale(bytesPerSecond);
    }

    /** One latency row from the per-iteration samples (nanoseconds). */
    void latency(int size, long[] samplesNanos) {
        latency(size, samplesNanos, samplesNanos.length);
    }

    /**
     * A latency row for {@code iterations} messages from {@code samplesNanos} (perftest's ping-pong
     * server has one sample fewer than messages: the gaps between its sends).
     */
    void latency(int size, long[] samplesNanos, int iterations) {
        long[] s = samplesNanos.clone();
        Arrays.sort(s);
        int n = s.length;
        double sum = 0;
        for (long v : s) {
            sum += v;
        }
        double avg = sum / n;
        double var = 0;
        for (long v : s) {
            var += (v - avg) * (v - avg);
        }
        double stdev = Math.sqrt(var / n);
        double min = s[0] / 1e3;
        double max = s[n - 1] / 1e3;
        double typical = s[n / 2] / 1e3;
        double p99 = s[Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)] / 1e3;
        double p999 = s[Math.min(n - 1, (int) Math.ceil(n * 0.999) - 1)] / 1e3;
        if (json) {
            out.printf(Locale.ROOT, "{\"test\":\"%s\",\"bytes\":%d,\"iterations\":%d,\"t_min_usec\":%.2f,"
                            + "\"t_max_usec\":%.2f,\"t_typical_usec\":%.2f,\"t_avg_usec\":%.2f,\"t_stdev_usec\":%.2f,"
                            + "\"p99_usec\":%.2f,\"p99_9_usec\":%.2f}%n",
                    test, size, iterations, min, max, typical, avg / 1e3, stdev / 1e3, p99, p999);
            return;
        }
        if (!headerDone) {
            headerDone = true;
            out.println(RULE);
            out.println(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
                    + "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ");
        }
        out.printf(Locale.ROOT, " %-7d %-7d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f"
                + "\t\t%-7.2f   \t\t%-7.2f%n", size, iterations, min, max, typical, avg / 1e3, stdev / 1e3, p99, p999);
    }

    /**
     * A duration latency row ({@code -D}), as perftest's {@code print_report_lat_duration}:
     * {@code iterations} that completed in a sample window of {@code sampleNanos}; the average
     * latency is the window over the iterations, halved for a ping-pong ({@code rttFactor} 2),
     * and the rate is iterations per second.
     */
    void latencyDuration(int size, long iterations, long sampleNanos, int rttFactor) {
        double avgUsec = iterations == 0 ? 0 : sampleNanos / 1e3 / rttFactor / iterations;
        double tps = iterations / (sampleNanos / 1e9);
        if (json) {
            out.printf(Locale.ROOT, "{\"test\":\"%s\",\"bytes\":%d,\"iterations\":%d,\"t_avg_usec\":%.2f,"
                    + "\"tps_average\":%.2f}%n", test, size, iterations, avgUsec, tps);
            return;
        }
        if (!headerDone) {
            headerDone = true;
            out.println(RULE);
            out.println(" #bytes        #iterations       t_avg[usec]    tps average");
        }
        out.printf(Locale.ROOT, " %-7d       %d            %-7.2f        %-7.2f%n", size, iterations, avgUsec, tps);
    }

    void end() {
        if (!json && headerDone) {
            out.println(RULE);
        }
    }

    private String unit() {
        return gbits ? "gbps" : "mbps";
    }

    private double scale(double bytesPerSecond) {
        return gbits ? bytesPerSecond * 8 / 1e9 : bytesPerSecond / (1 << 20);
    }
}
