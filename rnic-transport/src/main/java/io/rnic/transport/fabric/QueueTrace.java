package io.rnic.transport.fabric;

import io.rnic.transport.sim.SimScheduler;
import java.io.IOException;

/**
 * A sampled trace of queue depth: every period of virtual time, one CSV row per traced port,
 * {@code time_ns,node,port,bytes,q0,...,q7} (bytes queued in all and per priority). Made by
 * {@link Fabric#traceQueues}; it samples until {@link #stop()}.
 */
public final class QueueTrace {
    /** The CSV header the trace writes first. */
    public static final String HEADER = "time_ns,node,port,bytes,q0,q1,q2,q3,q4,q5,q6,q7";

    private final SimScheduler scheduler;
    private final long period;
    private final Appendable out;
    private final Port[] ports;
    private final StringBuilder line = new StringBuilder(128);
    private boolean stopped;
    private long samples;
    private final SimScheduler.Activation tick = new SimScheduler.Activation() {
        @Override
        protected void fire() {
            sample();
        }
    };

    QueueTrace(SimScheduler scheduler, long period, Appendable out, Port[] ports) {
        this.scheduler = scheduler;
        this.period = period;
        this.out = out;
        this.ports = ports;
    }

    void start() {
        try {
            out.append(HEADER).append('\n');
        } catch (IOException e) {
            throw Fabric.unchecked(e);
        }
        scheduler.activate(tick, scheduler.nanoTime());
    }

    private void sample() {
        if (stopped) {
            return;
        }
        long now = scheduler.nanoTime();
        try {
            for (Port p : ports) {
                line.setLength(0);
                line.append(now).append(',').append(p.owner.id()).append(',').append(p.index).append(',')
                        .append(p.queueBytes());
                for (int q = 0; q < Port.PRIORITIES; q++) {
                    line.append(',').append(p.queueBytes(q));
                }
                out.append(line).append('\n');
            }
        } catch (IOException e) {
            throw Fabric.unchecked(e);
        }
        samples++;
        // Only while something else is going on: a trace alone must not keep a run going forever.
        if (scheduler.pending() > 0) {
            scheduler.activate(tick, now + period);
        }
    }

    /** Stops sampling. */
    public void stop() {
        stopped = true;
    }

    /** Samples taken so far (each one row per port). */
    public long samples() {
        return samples;
    }
}
