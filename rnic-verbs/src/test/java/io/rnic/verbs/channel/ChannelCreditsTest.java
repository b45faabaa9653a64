package io.rnic.verbs.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The credit-based flow control's rules, one named test each, on the accounting alone. */
class ChannelCreditsTest {

    @Test
    void aSendTakesOneLocalAndOneRemoteDataCreditAndWaitsWhenEitherIsGone() {
        ChannelCredits c = new ChannelCredits(2, 2, 1, 1);
        assertTrue(c.takeData());
        assertTrue(c.takeData());
        assertFalse(c.takeData(), "both credits of each kind are taken");
        assertEquals(0, c.localData());
        assertEquals(0, c.remoteData());
        c.dataCompleted();
        assertFalse(c.takeData(), "a completion returns the local credit only: the peer's receive may not be re-posted yet");
        c.ackReceived(1 << 16);
        assertTrue(c.takeData(), "the peer's acknowledgement returns the remote one");
    }

    /**
     * A Send(ack) returns credits this side took: a grant of more than is outstanding (forged, or
     * a peer configured otherwise) is a protocol error, refused whole, and no run of them can
     * overflow the counters.
     */
    @Test
    void aGrantBeyondTheCreditsOutstandingIsRefusedAndChangesNothing() {
        ChannelCredits c = new ChannelCredits(8, 4, 4, 2);
        assertTrue(c.takeData());
        assertTrue(c.takeData()); // two data credits outstanding
        c.dataReceived();
        c.takeAck(); // one ack credit outstanding
        assertFalse(c.ackReceived(3 << 16), "3 data credits granted, 2 outstanding");
        assertFalse(c.ackReceived(2), "2 ack credits granted, 1 outstanding");
        assertFalse(c.ackReceived(0xFFFF_FFFF), "the most a u16 pair can grant");
        assertEquals(6, c.remoteData(), "a refused grant changes nothing: " + c);
        assertEquals(3, c.remoteAcks());
        assertEquals(0, c.receivedAcks(), "a refused acknowledgement is not counted toward ours");
        assertTrue(c.ackReceived((2 << 16) | 1), "exactly what is outstanding");
        assertEquals(8, c.remoteData());
        assertEquals(4, c.remoteAcks());
        for (int i = 0; i < 100_000; i++) {
            assertFalse(c.ackReceived(0xFFFF_0000), "nothing is outstanding now");
        }
        assertEquals(8, c.remoteData(), "no overflow after many forged grants");
        assertEquals(4, c.remoteAcks());
    }

    @Test
    void theAcknowledgementCarriesReceivedDataAndAcksAsTwoU16AndRestartsTheCounts() {
        ChannelCredits c = new ChannelCredits(8, 4, 3, 1);
        for (int i = 0; i < 5; i++) {
            c.dataReceived();
        }
        c.ackReceived(0);
        c.ackReceived(0);
        assertEquals((5 << 16) | 2, c.takeAck());
        assertEquals(0, c.receivedData());
        assertEquals(0, c.receivedAcks());
        assertEquals(3, c.localAcks());
        assertEquals(3, c.remoteAcks());
    }

    @Test
    void anAckIsDueWhenReceivedDataPassesHalfTheCapacity() {
        ChannelCredits c = ChannelCredits.withDefaultThresholds(8, 4); // thresholds 4 and 2
        for (int i = 0; i < 4; i++) {
            c.dataReceived();
            assertFalse(c.ackDue(false), "not yet past half: " + c);
        }
        c.dataReceived();
        assertTrue(c.ackDue(false), "5 > 4: due");
    }

    @Test
    void anAckIsDueWhenReceivedAcksPassTheirThreshold() {
        ChannelCredits c = ChannelCredits.withDefaultThresholds(8, 4);
        c.ackReceived(0);
        c.ackReceived(0);
        assertFalse(c.ackDue(false), "2 is not past 2");
        c.ackReceived(0);
        assertTrue(c.ackDue(false));
    }

    @Test
    void theLastAckCreditIsKeptForAnAcknowledgementThatReturnsAckCredits() {
        ChannelCredits c = new ChannelCredits(16, 2, 0, 1);
        c.dataReceived();
        c.takeAck(); // the first of two ack credits
        c.dataReceived();
        assertFalse(c.ackDue(false), "the last credit would go to an ack that returns no ack credit");
        assertThrows(IllegalStateException.class, c::takeAck);
        c.ackReceived(0); // the peer's ack arrives (it returns no credit of ours), and is counted
        assertTrue(c.ackDue(false), "now the ack hands the peer an ack credit back: the last credit may carry it");
        assertEquals((1 << 16) | 1, c.takeAck());
    }

    @Test
    void fewerThanTwoAckCreditsAreRefusedAndAZeroAckThresholdToo() {
        IllegalArgumentException one = assertThrows(IllegalArgumentException.class, () -> new ChannelCredits(8, 1, 4, 1));
        assertTrue(one.getMessage().contains("crossing"), one.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ChannelCredits(8, 4, 4, 0));
        assertThrows(IllegalArgumentException.class, () -> new ChannelCredits(8, 4, 8, 1));
    }

    @Test
    void dataWaitingForRemoteCreditsSendsTheAcknowledgementsItOwesAtOnce() {
        ChannelCredits c = new ChannelCredits(2, 4, 1, 3);
        c.takeData();
        c.takeData();
        c.ackReceived(0);
        c.ackReceived(0);
        assertFalse(c.ackDue(true), "the peer still has two ack credits: no need to hurry");
        c.ackReceived(0); // three of the peer's four: below the threshold of 3, but the peer may be stuck
        assertFalse(c.ackDue(false));
        assertTrue(c.ackDue(true), "blocked on remote data credits: return the peer's ack credits now, it may need them");
    }

    /**
     * Two sides exchanging only acknowledgements of acknowledgements: each sends one per more
     * than {@code threshold} received, so the exchange dies out.
     */
    @Test
    void acknowledgementsOfAcknowledgementsDieOutInsteadOfLooping() {
        ChannelCredits a = new ChannelCredits(8, 8, 4, 1);
        ChannelCredits b = new ChannelCredits(8, 8, 4, 1);
        ArrayDeque<Integer> toA = new ArrayDeque<>();
        ArrayDeque<Integer> toB = new ArrayDeque<>();
        // b has acknowledged 8 data messages with 4 acknowledgements: a starts with 4 acks received.
        for (int i = 0; i < 4; i++) {
            b.dataReceived();
            b.dataReceived();
            toA.add(b.takeAck());
        }
        int messages = 0;
        while (!toA.isEmpty() || !toB.isEmpty()) {
            if (++messages > 100) {
                throw new AssertionError("acknowledgements loop: " + a + " / " + b);
            }
            if (!toA.isEmpty()) {
                a.ackReceived(toA.poll());
                a.ackCompleted();
            }
            if (!toB.isEmpty()) {
                b.ackReceived(toB.poll());
                b.ackCompleted();
            }
            while (a.ackDue(false)) {
                toB.add(a.takeAck());
            }
            while (b.ackDue(false)) {
                toA.add(b.takeAck());
            }
        }
        assertTrue(messages < 10, "died out after " + messages + " rounds");
    }

    /**
     * Both sides send data as fast as credits allow, with the smallest ack budget (2) and
     * acknowledgements crossing in flight in random order: the model never reaches a state where
     * both sides wait forever.
     */
    @Test
    void crossingAcknowledgementsNeverLeaveBothSidesWithoutCredits() {
        for (long seed = 1; seed <= 200; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            Side a = new Side(new ChannelCredits(2, 2, 1, 1));
            Side b = new Side(new ChannelCredits(2, 2, 1, 1));
            int delivered = 0;
            for (int step = 0; step < 5_000; step++) {
                boolean moved = a.sendWhatCreditsAllow(b, true) | b.sendWhatCreditsAllow(a, true);
                // deliver one message in flight, to a random side, and complete local sends at random
                moved |= r.nextBoolean() ? a.deliverOne(r) : b.deliverOne(r);
                moved |= r.nextBoolean() ? a.completeOne() : b.completeOne();
                if (!moved && a.inFlight.isEmpty() && b.inFlight.isEmpty() && a.unfinished == 0 && b.unfinished == 0) {
                    throw new AssertionError("seed " + seed + " step " + step + ": both sides stuck: " + a.c + " / " + b.c);
                }
                delivered = a.dataDelivered + b.dataDelivered;
            }
            assertTrue(delivered > 1000, "seed " + seed + ": data kept flowing, " + delivered + " messages");
        }
    }

    /**
     * Data one way only, the smallest budgets: the receiver spends its first ack credit, must keep
     * the last, and can acknowledge again only when the sender returns ack credits, which the
     * sender does because its data waits for remote credits.
     */
    @Test
    void oneWayTrafficNeverWaitsForAnAcknowledgementTheReceiverCannotSend() {
        for (long seed = 1; seed <= 200; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            Side sender = new Side(new ChannelCredits(2, 2, 1, 1));
            Side receiver = new Side(new ChannelCredits(2, 2, 1, 1));
            for (int step = 0; step < 5_000; step++) {
                boolean moved = sender.sendWhatCreditsAllow(receiver, true) | receiver.sendWhatCreditsAllow(sender, false);
                moved |= r.nextBoolean() ? sender.deliverOne(r) : receiver.deliverOne(r);
                moved |= r.nextBoolean() ? sender.completeOne() : receiver.completeOne();
                if (!moved && sender.inFlight.isEmpty() && receiver.inFlight.isEmpty() && sender.unfinished == 0
                        && receiver.unfinished == 0) {
                    throw new AssertionError("seed " + seed + " step " + step + ": stuck: sender " + sender.c + " / receiver "
                            + receiver.c);
                }
            }
            assertTrue(receiver.dataDelivered > 1000, "seed " + seed + ": " + receiver.dataDelivered + " messages");
        }
    }

    /** One side of the model: messages in flight to it, and its own sends not yet completed. */
    private static final class Side {
        final ChannelCredits c;
        final ArrayDeque<Integer> inFlight = new ArrayDeque<>(); // -1 data, otherwise an ack's immediate
        final ArrayDeque<Boolean> completions = new ArrayDeque<>(); // true data, false ack
        int unfinished;
        int dataDelivered;

        Side(ChannelCredits c) {
            this.c = c;
        }

        boolean sendWhatCreditsAllow(Side peer, boolean hasData) {
            boolean moved = false;
            while (hasData && c.takeData()) {
                peer.inFlight.add(-1);
                completions.add(true);
                unfinished++;
                moved = true;
            }
            // when it has data, always more waiting: the application has an endless supply
            while (c.ackDue(hasData)) {
                peer.inFlight.add(c.takeAck());
                completions.add(false);
                unfinished++;
                moved = true;
            }
            return moved;
        }

        boolean deliverOne(SplittableRandom r) {
            if (inFlight.isEmpty()) {
                return false;
            }
            int m = inFlight.poll();
            if (m == -1) {
                c.dataReceived();
                dataDelivered++;
            } else {
                c.ackReceived(m);
            }
            return true;
        }

        boolean completeOne() {
            Boolean data = completions.poll();
            if (data == null) {
                return false;
            }
            unfinished--;
            if (data) {
                c.dataCompleted();
            } else {
                c.ackCompleted();
            }
            return true;
        }
    }
}
