package io.rnic.transport.udp;

import io.netty.channel.EventLoop;
import io.rnic.core.time.Scheduler;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The protocol {@link Scheduler} of a UDP wire: its agent's event loop (timers), its doorbell ring
 * (tasks) and the monotonic clock.
 */
final class EventLoopScheduler implements Scheduler {
    private final EventLoop loop;
    private final HcaAgent agent;

    EventLoopScheduler(HcaAgent agent) {
        this.agent = agent;
        this.loop = agent.loop();
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Timer schedule(long delayNanos, Runnable task) {
        if (delayNanos < 0) {
            throw new IllegalArgumentException("delay " + delayNanos + " ns is negative");
        }
        ScheduledFuture<?> f = loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public void execute(Runnable task) {
        agent.ring(task);
    }

    @Override
    public boolean inOwnerThread() {
        return loop.inEventLoop();
    }

    EventLoop loop() {
        return loop;
    }
}
