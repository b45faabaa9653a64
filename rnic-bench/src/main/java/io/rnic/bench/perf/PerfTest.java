package io.rnic.bench.perf;

import io.rnic.verbs.WrOpcode;

/** The perftest programs {@code rnic perf} runs: an operation, measured as bandwidth or latency. */
public enum PerfTest {
    WRITE_BW("write_bw", Op.WRITE, false),
    READ_BW("read_bw", Op.READ, false),
    SEND_BW("send_bw", Op.SEND, false),
    ATOMIC_BW("atomic_bw", Op.ATOMIC, false),
    WRITE_LAT("write_lat", Op.WRITE, true),
    READ_LAT("read_lat", Op.READ, true),
    SEND_LAT("send_lat", Op.SEND, true),
    ATOMIC_LAT("atomic_lat", Op.ATOMIC, true);

    /** The operation a test measures. */
    public enum Op { WRITE, READ, SEND, ATOMIC }

    private final String command;
    private final Op op;
    private final boolean latency;

    PerfTest(String command, Op op, boolean latency) {
        this.command = command;
        this.op = op;
        this.latency = latency;
    }

    /** The name on the command line ({@code write_bw}), as perftest's {@code ib_write_bw}. */
    public String command() {
        return command;
    }

    public Op op() {
        return op;
    }

    public boolean latency() {
        return latency;
    }

    /**
     * A ping-pong test: both sides send, each answering the other (perftest's write_lat and
     * send_lat, whose reported time is half a round trip). READ and atomic latency tests are
     * one-sided: the client times each whole round trip.
     */
    public boolean pingPong() {
        return latency && (op == Op.WRITE || op == Op.SEND);
    }

    /** perftest's default message size: 65536 for bandwidth, 2 for latency, 8 for atomics. */
    public int defaultSize() {
        return op == Op.ATOMIC ? 8 : latency ? 2 : 65536;
    }

    /** perftest's default iteration count: 5000 for bandwidth, 1000 for latency. */
    public int defaultIterations() {
        return latency ? 1000 : 5000;
    }

    WrOpcode wrOpcode(WrOpcode atomic) {
        return switch (op) {
            case WRITE -> WrOpcode.RDMA_WRITE;
            case READ -> WrOpcode.RDMA_READ;
            case SEND -> WrOpcode.SEND;
            case ATOMIC -> atomic;
        };
    }

    /** The test named {@code name} on the command line, or null. */
    public static PerfTest byCommand(String name) {
        for (PerfTest t : values()) {
            if (t.command.equals(name)) {
                return t;
            }
        }
        return null;
    }
}
