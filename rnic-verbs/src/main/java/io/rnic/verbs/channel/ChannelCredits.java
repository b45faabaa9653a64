package io.rnic.verbs.channel;

/**
 * The accounting of the credit-based Send/Recv flow control, without the QP: how many Send(data) and
 * Send(ack) messages this side may still post under its own send queue's limits (local) and under
 * the peer's posted receives (remote), and when to acknowledge what it has received. Plain
 * counters and branches, so that the per-send cost is a few nanoseconds (see
 * {@code ChannelBenchmark}); {@link CreditChannel} drives it. Not thread-safe.
 *
 * <p>The rules, each tested by name in {@code ChannelCreditsTest}:
 * <ul>
 *   <li>a Send(data) takes one local and one remote data credit; its completion returns the local
 *       one, the peer's acknowledgement the remote one;</li>
 *   <li>a Send(ack) does the same with ack credits, and carries the Send(data) and Send(ack)
 *       messages received since the last acknowledgement, as two u16 in its immediate data;</li>
 *   <li>an acknowledgement is due when either count passes its threshold (by default half the
 *       initial capacity, as the seed says), or when this side has data waiting for remote
 *       credits while it holds all but one of the peer's ack credits: the peer may then be
 *       holding back the acknowledgement it owes, for want of ack credits only ours can return;</li>
 *   <li>the last remote ack credit is kept for an acknowledgement that returns ack credits (one
 *       that counts at least one received Send(ack)), and at least two ack credits are required:
 *       two acknowledgements crossing in flight then cannot leave both sides without credits,
 *       since each side's last one hands the other a credit back;</li>
 *   <li>an acknowledgement that only returns ack credits is sent when more than the threshold
 *       of them are owed, so acknowledgements of acknowledgements die out instead of looping.</li>
 * </ul>
 */
public final class ChannelCredits {
    private final int maxData;
    private final int maxAcks;
    private final int dataThreshold;
    private final int ackThreshold;
    private int localData;
    private int localAcks;
    private int remoteData;
    private int remoteAcks;
    private int receivedData;
    private int receivedAcks;

    /**
     * Credits for a channel whose both sides post {@code maxData + maxAcks} receives.
     *
     * @param maxData Send(data) messages in flight at most ({@code max_send_data_wr})
     * @param maxAcks Send(ack) messages in flight at most ({@code max_send_imm_wr}), at least 2
     * @param dataThreshold acknowledge when more Send(data) than this have been received, 0 to {@code maxData - 1}
     * @param ackThreshold acknowledge when more Send(ack) than this have been received, 1 to {@code maxAcks - 1}
     * @throws IllegalArgumentException if a limit is out of its range
     */
    public ChannelCredits(int maxData, int maxAcks, int dataThreshold, int ackThreshold) {
        if (maxData < 1 || maxData > 0xFFFF) {
            throw new IllegalArgumentException("max data messages " + maxData + " must be 1 to 65535 (a u16 acknowledges them)");
        }
        if (maxAcks < 2 || maxAcks > 0xFFFF) {
            throw new IllegalArgumentException("max ack messages " + maxAcks
                    + " must be 2 to 65535: with one, crossing acknowledgements could leave both sides without ack credits");
        }
        if (dataThreshold < 0 || dataThreshold >= maxData) {
            throw new IllegalArgumentException("data threshold " + dataThreshold + " must be 0 to " + (maxData - 1)
                    + ": above that no acknowledgement would ever be due");
        }
        if (ackThreshold < 1 || ackThreshold >= maxAcks) {
            throw new IllegalArgumentException("ack threshold " + ackThreshold + " must be 1 to " + (maxAcks - 1)
                    + ": 0 would acknowledge every acknowledgement, forever");
        }
        this.maxData = maxData;
        this.maxAcks = maxAcks;
        this.dataThreshold = dataThreshold;
        this.ackThreshold = ackThreshold;
        localData = maxData;
        localAcks = maxAcks;
        remoteData = maxData;
        remoteAcks = maxAcks;
    }

    /**
     * Credits with the seed's default thresholds: half the initial capacities.
     *
     * @param maxData Send(data) messages in flight at most
     * @param maxAcks Send(ack) messages in flight at most, at least 2
     * @return the credits, all available
     */
    public static ChannelCredits withDefaultThresholds(int maxData, int maxAcks) {
        return new ChannelCredits(maxData, maxAcks, maxData / 2, Math.max(1, maxAcks / 2));
    }

    /**
     * Takes the credits of one Send(data), if both sides allow it.
     *
     * @return true if the message may be posted now
     */
    public boolean takeData() {
        if (localData == 0 || remoteData == 0) {
            return false;
        }
        localData--;
        remoteData--;
        return true;
    }

    /** A Send(data) completed locally: its send queue slot is free again. */
    public void dataCompleted() {
        localData++;
    }

    /** A Send(ack) completed locally. */
    public void ackCompleted() {
        localAcks++;
    }

    /**
     * A Send(data) arrived and its receive has been re-posted: it counts toward the next
     * acknowledgement.
     */
    public void dataReceived() {
        receivedData++;
    }

    /**
     * A Send(ack) arrived (its receive re-posted): the peer returns credits, and it counts toward
     * the next acknowledgement.
     *
     * <p>The peer can only return credits this side took: every Send(data) and Send(ack) it
     * acknowledges is one this side posted. A grant of more than is outstanding (more than
     * {@code maxData - remoteData} data credits, or {@code maxAcks - remoteAcks} ack credits) is
     * a protocol error, a forged or corrupt acknowledgement or a peer configured otherwise: it is
     * refused whole and changes nothing, so that no run of them can push the counters past the
     * peer's receives or overflow them.
     *
     * @param immediate the acknowledgement's immediate data, as {@link #takeAck} made it
     * @return true if the grant was taken; false if it grants more than is outstanding (nothing changed)
     */
    public boolean ackReceived(int immediate) {
        int data = immediate >>> 16;
        int acks = immediate & 0xFFFF;
        if (data > maxData - remoteData || acks > maxAcks - remoteAcks) {
            return false;
        }
        remoteData += data;
        remoteAcks += acks;
        receivedAcks++;
        return true;
    }

    /**
     * Says why an acknowledgement is refused by {@link #ackReceived}, for the error that fails a
     * channel.
     *
     * @param immediate the refused acknowledgement's immediate data
     * @return a sentence naming what it grants and what was outstanding
     */
    public String describeExcessGrant(int immediate) {
        return "the peer's Send(ack) grants " + (immediate >>> 16) + " data credits and " + (immediate & 0xFFFF)
                + " ack credits, but only " + (maxData - remoteData) + " and " + (maxAcks - remoteAcks)
                + " are outstanding (the channel allows " + maxData + " and " + maxAcks
                + " in flight): a protocol error, the grant is refused";
    }

    /**
     * Whether an acknowledgement is due now.
     *
     * @param dataWaiting true if this side has Send(data) waiting for credits
     * @return true if {@link #takeAck} would succeed and should be called
     */
    public boolean ackDue(boolean dataWaiting) {
        if (receivedData == 0 && receivedAcks == 0) {
            return false;
        }
        // Waiting data, and the peer may be down to the last ack credit with nothing to return (it
        // has spent every other one on acknowledgements we hold): only ours can unblock it.
        boolean wanted = receivedData > dataThreshold || receivedAcks > ackThreshold
                || (dataWaiting && remoteData == 0 && receivedAcks >= maxAcks - 1);
        return wanted && canSendAck();
    }

    private boolean canSendAck() {
        if (localAcks == 0 || remoteAcks == 0) {
            return false;
        }
        // The last ack credit only for an acknowledgement that hands the peer ack credits back.
        return remoteAcks > 1 || receivedAcks > 0;
    }

    /**
     * Takes the credits of one Send(ack) and returns its immediate data (received Send(data) in
     * the high u16, received Send(ack) in the low one); the counts restart from zero.
     *
     * @return the immediate data of the acknowledgement to post
     * @throws IllegalStateException if no acknowledgement may be sent now
     */
    public int takeAck() {
        if (!canSendAck() || (receivedData == 0 && receivedAcks == 0)) {
            throw new IllegalStateException("no acknowledgement may be sent now: " + this);
        }
        localAcks--;
        remoteAcks--;
        int imm = (receivedData << 16) | receivedAcks;
        receivedData = 0;
        receivedAcks = 0;
        return imm;
    }

    /** @return Send(data) messages this side may still post under its own send queue */
    public int localData() {
        return localData;
    }

    /** @return Send(data) messages the peer's posted receives still allow */
    public int remoteData() {
        return remoteData;
    }

    /** @return Send(ack) messages this side may still post under its own send queue */
    public int localAcks() {
        return localAcks;
    }

    /** @return Send(ack) messages the peer's posted receives still allow */
    public int remoteAcks() {
        return remoteAcks;
    }

    /** @return Send(data) received since the last acknowledgement */
    public int receivedData() {
        return receivedData;
    }

    /** @return Send(ack) received since the last acknowledgement */
    public int receivedAcks() {
        return receivedAcks;
    }

    /** @return the initial data credits */
    public int maxData() {
        return maxData;
    }

    /** @return the initial ack credits */
    public int maxAcks() {
        return maxAcks;
    }

    @Override
    public String toString() {
        return "credits{data local " + localData + " remote " + remoteData + ", acks local " + localAcks + " remote "
                + remoteAcks + ", received data " + receivedData + " acks " + receivedAcks + "}";
    }
}
