package io.rnic.transport.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The event queue runs events in (time, order scheduled) order, whatever structure holds them. */
class SimSchedulerTest {

    /** The tags of {@code scheduled} ({time, tag} pairs, tags in scheduling order) due by {@code upTo}, in run order. */
    private static List<Long> inTimeThenSchedulingOrder(List<long[]> scheduled, long upTo) {
        List<long[]> sorted = new ArrayList<>(scheduled);
        sorted.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
        List<Long> order = new ArrayList<>();
        for (long[] e : sorted) {
            if (e[0] <= upTo) {
                order.add(e[1]);
            }
        }
        return order;
    }

    /**
     * A cancelled timer lets go of its task at once, not when its time comes: what the task holds
     * (a connection manager's request, say) is garbage long before a far deadline. It still never
     * runs, and cancelling again says it was not pending.
     */
    @Test
    void aCancelledTimerLetsGoOfItsTaskAtOnce() {
        SimScheduler s = new SimScheduler();
        int[] ran = {0};
        SimScheduler.Event e = (SimScheduler.Event) s.schedule(100_000_000_000L, () -> ran[0]++);
        assertTrue(e.cancel());
        org.junit.jupiter.api.Assertions.assertNull(e.task, "the task is dropped when the timer is cancelled");
        org.junit.jupiter.api.Assertions.assertFalse(e.cancel());
        s.runUntilIdle();
        assertEquals(0, ran[0]);
    }

    /**
     * Many interleaved streams, each later than its last (as link directions are), plus events
     * out of any order (as timers are): more streams than the queue has lanes, so some go to the
     * heap; the run order must be the sorted one.
     */
    @Test
    void interleavedStreamsAndStrayEventsRunInTimeThenSchedulingOrder() {
        SimScheduler s = new SimScheduler();
        SplittableRandom r = new SplittableRandom(5);
        long[] streamTime = new long[7];
        List<long[]> scheduled = new ArrayList<>(); // {time, sequence}
        List<Long> ran = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            long delay;
            if (r.nextInt(10) == 0) {
                delay = r.nextLong(0, 1_000_000); // a stray event
            } else {
                int k = r.nextInt(streamTime.length);
                streamTime[k] += r.nextInt(0, 300); // equal times happen too
                delay = streamTime[k];
            }
            long seq = i;
            scheduled.add(new long[] {delay, seq});
            s.schedule(delay, () -> ran.add(seq));
        }
        s.runUntilIdle();
        List<Long> expected = inTimeThenSchedulingOrder(scheduled, Long.MAX_VALUE);
        assertEquals(expected, ran);
    }

    /**
     * Events scheduled while others run (as a doorbell, an ACK timer or an answer is): a new one
     * earlier than every lane's next must run before them, however many ran from one lane just
     * before. The run order must still be (time, order scheduled).
     */
    @Test
    void eventsScheduledWhileRunningKeepTimeThenSchedulingOrder() {
        SimScheduler s = new SimScheduler();
        SplittableRandom r = new SplittableRandom(11);
        long[] streamTime = new long[5];
        List<long[]> scheduled = new ArrayList<>(); // {time, sequence}
        List<Long> ran = new ArrayList<>();
        long[] next = {0};
        Runnable[] add = new Runnable[1];
        add[0] = () -> {
            long delay;
            int kind = r.nextInt(10);
            if (kind == 0) {
                delay = 0; // run next, before everything already waiting at later times
            } else if (kind == 1) {
                delay = r.nextLong(0, 2_000); // a stray event, maybe before a lane's next
            } else {
                int k = r.nextInt(streamTime.length);
                streamTime[k] = Math.max(streamTime[k], s.nanoTime()) + r.nextInt(0, 300);
                delay = streamTime[k] - s.nanoTime();
            }
            long seq = next[0]++;
            scheduled.add(new long[] {s.nanoTime() + delay, seq});
            s.schedule(delay, () -> {
                ran.add(seq);
                if (next[0] < 50_000) {
                    for (int j = r.nextInt(3); j > 0; j--) {
                        add[0].run();
                    }
                }
            });
        };
        for (int i = 0; i < 2_000; i++) {
            add[0].run();
        }
        s.runUntilIdle();
        List<Long> expected = inTimeThenSchedulingOrder(scheduled, Long.MAX_VALUE);
        assertTrue(ran.size() > 20_000, "events scheduled while running: " + ran.size());
        assertEquals(expected, ran);
    }

    /**
     * An arrival's event is filled in place in its lane's ring slot. Arrivals on more directions
     * than there are lanes (some go to the heap), mixed with timers, scheduled from inside
     * deliveries (as an answer is) and in bursts longer than a lane's ring (which doubles): each
     * packet arrives once, in (time, order scheduled) order, and those still in flight when the
     * queue is drained are released, none twice.
     */
    @Test
    void arrivalsFilledInTheirSlotsRunOnceInTimeThenSchedulingOrder() {
        SimNetwork net = new SimNetwork(1);
        SimScheduler s = net.scheduler();
        SimWire[] wires = new SimWire[4];
        for (int i = 0; i < wires.length; i++) {
            wires[i] = net.attach("10.0.0." + (i + 1));
        }
        List<LinkDirection> dirs = new ArrayList<>();
        for (SimWire a : wires) {
            for (SimWire b : wires) {
                if (a != b) {
                    dirs.add(net.link(a, b).from(a));
                }
            }
        }
        SplittableRandom r = new SplittableRandom(7);
        long[] dirTime = new long[dirs.size()];
        List<long[]> scheduled = new ArrayList<>(); // {time, tag}
        List<Long> ran = new ArrayList<>();
        List<ByteBuf> sent = new ArrayList<>();
        long[] tags = {0};
        Runnable[] schedule = new Runnable[1];
        schedule[0] = () -> {
            int burst = r.nextInt(20) == 0 ? 600 : r.nextInt(1, 4); // some bursts outgrow a 256-slot ring
            for (int j = 0; j < burst && tags[0] < 30_000; j++) {
                long tag = tags[0]++;
                int k = r.nextInt(dirs.size());
                // mostly later than the direction's last (a lane takes it), sometimes earlier, and
                // now and then far later (a lane's tail jumps ahead: what follows goes to the heap)
                dirTime[k] = Math.max(dirTime[k], s.nanoTime()) + (r.nextInt(8) == 0 ? -r.nextInt(500) : r.nextInt(300));
                long at = Math.max(dirTime[k], s.nanoTime()) + (r.nextInt(40) == 0 ? r.nextInt(20_000, 100_000) : 0);
                ByteBuf p = Unpooled.buffer(8).writeLong(tag);
                sent.add(p);
                scheduled.add(new long[] {at, tag});
                LinkDirection d = dirs.get(k);
                s.scheduleArrival(at, d, p, d.from().localAddress(), false, 0);
            }
        };
        for (SimWire w : wires) {
            w.receiver((p, src, dst) -> {
                ran.add(p.getLong(p.readerIndex()));
                if (r.nextInt(3) == 0) {
                    schedule[0].run(); // from inside a delivery, while its own event is being recycled
                }
            });
        }
        for (int i = 0; i < 200; i++) {
            s.schedule(r.nextLong(0, 2_000_000), schedule[0]);
        }
        s.runUntil(1_000_000);
        int inFlight = s.pending();
        s.drain();
        List<Long> expected = inTimeThenSchedulingOrder(scheduled, 1_000_000);
        assertEquals(expected, ran);
        assertTrue(inFlight > 0 && ran.size() > 10_000, "both delivered and drained packets: " + ran.size() + ", " + inFlight);
        for (ByteBuf p : sent) {
            assertEquals(0, p.refCnt(), "delivered or drained, each exactly once");
        }
    }

    /**
     * The case the random mix above rarely reaches: an arrival that goes to the heap while a
     * lane keeps the event of one it delivered, and that lane's ring then comes round to the
     * kept event's slot. Were one event both (a lane's delivered event also put on the free
     * list), the heap's packet would be overwritten: one packet lost and another twice.
     */
    @Test
    void anArrivalOnTheHeapNeverSharesItsEventWithALaneSlot() {
        SimNetwork net = new SimNetwork(1);
        SimScheduler s = net.scheduler();
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        LinkDirection d = net.link(a, b).from(a);
        List<Long> ran = new ArrayList<>();
        b.receiver((p, src, dst) -> ran.add(p.getLong(p.readerIndex())));
        long[] tag = {0};
        java.util.function.LongConsumer arrive = at -> s.scheduleArrival(at, d, Unpooled.buffer(8).writeLong(tag[0]++),
                a.localAddress(), false, 0);
        for (int t = 1; t <= 10; t++) {
            arrive.accept(t); // lane 0's slots 0..9, delivered next: their events stay in the slots
        }
        s.runUntil(10);
        arrive.accept(1_000_000); // tag 10: lane 0 (slot 10)
        arrive.accept(900_000); // tags 11..13: lanes 1, 2 and 3, each earlier than the lanes before
        arrive.accept(800_000);
        arrive.accept(700_000);
        arrive.accept(500_000); // tag 14: earlier than every lane's tail, so the heap
        for (int i = 1; i <= 260; i++) {
            arrive.accept(1_000_000 + i); // tags 15..274: lane 0 comes round to slot 9 and beyond
        }
        s.runUntilIdle();
        List<Long> expected = new ArrayList<>(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 14L, 13L, 12L, 11L, 10L));
        for (long t = 15; t < 275; t++) {
            expected.add(t);
        }
        assertEquals(expected, ran);
    }

    /**
     * A timer that lands in a lane slot whose arrival event was kept hands that event back: in a
     * steady mix of timers and arrivals (a doorbell or an ACK timer between packets) no arrival
     * event is made after the first rounds.
     */
    @Test
    void aSteadyMixOfTimersAndArrivalsMakesNoNewEvents() {
        SimNetwork net = new SimNetwork(1);
        SimScheduler s = net.scheduler();
        SimWire a = net.attach("10.0.0.1");
        SimWire b = net.attach("10.0.0.2");
        LinkDirection d = net.link(a, b).from(a);
        b.receiver((p, src, dst) -> { });
        long madeAfterWarmUp = 0;
        for (int round = 0; round < 20_000; round++) {
            for (int i = 0; i < 4; i++) {
                s.scheduleArrival(s.nanoTime() + 1_000 + i, d, Unpooled.buffer(8).writeLong(i), a.localAddress(), false, 0);
            }
            s.runUntilIdle(); // the lane is empty now, so the next timer takes it
            s.execute(() -> { }); // a doorbell: a timer at the current time, in a slot that kept an arrival's event
            s.runUntilIdle();
            if (round == 100) {
                madeAfterWarmUp = s.arrivalEvents();
            }
        }
        s.runUntilIdle();
        assertEquals(madeAfterWarmUp, s.arrivalEvents(), "arrival events made after the first 100 rounds");
    }
}
