package io.rnic.verbs.channel;

import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.ConnectionInfo;
import io.rnic.verbs.Connections;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpCaps;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A message channel on a connected RC QP with credit-based flow control: a Send(data)
 * leaves only when the peer has a receive posted for it, so the channel never meets an RNR NAK
 * and needs no RNR retries; a message that has no credit yet waits in a bounded queue and leaves
 * as soon as a completion or the peer's acknowledgement restores one. RDMA READ and WRITE go
 * through the same send queue within quotas of their own.
 *
 * <p>Sizing, as the seed states it: the send queue holds {@code dataWr + ackWr + readWr + writeWr}
 * work requests, the receive queue {@code dataWr + ackWr}, and the completion queue the sum of
 * both, so it can never overflow. Both sides must be created with the same {@link Config}: each
 * assumes the peer posts {@code dataWr + ackWr} receives (the seed's "configured alike"; nothing
 * is exchanged beyond {@link ConnectionInfo}).
 *
 * <p>Acknowledgements are SENDs with immediate data (see {@link ChannelCredits}), so application
 * messages on a channel are SENDs without immediate data. A received message is handed to the
 * {@link MessageHandler} and its receive re-posted at once.
 *
 * <p>The channel does its work when its owner calls {@link #poll} (directly, or through the
 * blocking methods, which run the device's duty cycles or the simulated network's time while they
 * wait). One thread owns a channel.
 *
 * <pre>{@code
 * CreditChannel a = CreditChannel.create(pdA, CreditChannel.Config.defaults());
 * CreditChannel b = CreditChannel.create(pdB, CreditChannel.Config.defaults());
 * a.connect(b.localInfo(), RcOptions.defaults());
 * b.connect(a.localInfo(), RcOptions.defaults());
 * b.onMessage(message -> consume(message)); // the buffer is valid during the call only
 * a.offer(ByteBuffer.wrap("hello".getBytes()));
 * }</pre>
 */
public final class CreditChannel implements AutoCloseable {
    /** Kinds of work request, in the top byte of the work request id. */
    private static final long DATA = 1L << 56;
    private static final long ACK = 2L << 56;
    private static final long READ = 3L << 56;
    private static final long WRITE = 4L << 56;
    private static final long RECV = 5L << 56;
    private static final long KIND = 0xFFL << 56;

    /**
     * What a channel is sized by. Both sides use the same configuration.
     *
     * @param dataWr Send(data) messages in flight at most ({@code max_send_data_wr})
     * @param ackWr Send(ack) messages in flight at most ({@code max_send_imm_wr}), at least 2
     * @param readWr RDMA READs in flight at most ({@code max_read_wr})
     * @param writeWr RDMA WRITEs in flight at most ({@code max_write_wr})
     * @param messageBytes the largest message, and the size of each receive buffer
     * @param queueCapacity messages that may wait for credits before {@link #offer} refuses
     * @param dataThreshold acknowledge when more Send(data) than this have arrived (seed: half of {@code dataWr})
     * @param ackThreshold acknowledge when more Send(ack) than this have arrived (seed: half of {@code ackWr})
     * @param repostDelayNanos re-post a completed receive only this long after it completed (0: at once;
     *        more emulates a slow receiver, whose acknowledgements come late), in the device's time
     *        (virtual on the simulated network)
     */
    public record Config(int dataWr, int ackWr, int readWr, int writeWr, int messageBytes, int queueCapacity,
            int dataThreshold, int ackThreshold, long repostDelayNanos) {
        /**
         * Checks the ranges.
         *
         * @param dataWr Send(data) messages in flight at most
         * @param ackWr Send(ack) messages in flight at most, at least 2
         * @param readWr RDMA READs in flight at most
         * @param writeWr RDMA WRITEs in flight at most
         * @param messageBytes the largest message
         * @param queueCapacity messages that may wait for credits
         * @param dataThreshold acknowledge when more Send(data) than this have arrived
         * @param ackThreshold acknowledge when more Send(ack) than this have arrived
         * @param repostDelayNanos how long after its completion a receive is re-posted
         * @throws IllegalArgumentException naming the value out of range
         */
        public Config {
            new ChannelCredits(dataWr, ackWr, dataThreshold, ackThreshold); // checks the credit limits
            if (readWr < 0 || writeWr < 0) {
                throw new IllegalArgumentException("READ and WRITE quotas must be ≥ 0, got " + readWr + " and " + writeWr);
            }
            if (messageBytes < 1 || queueCapacity < 0 || repostDelayNanos < 0) {
                throw new IllegalArgumentException("message bytes " + messageBytes + " must be ≥ 1, queue capacity "
                        + queueCapacity + " and repost delay " + repostDelayNanos + " ≥ 0");
            }
            if ((long) messageBytes * (dataWr + ackWr + dataWr + queueCapacity) > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("buffers of " + messageBytes + " bytes × " + (2 * dataWr + ackWr + queueCapacity)
                        + " slots exceed 2 GiB");
            }
        }

        /**
         * 64 data and 4 ack messages in flight, 16 READs, 16 WRITEs, 4 KiB messages, 1024 queued,
         * the seed's thresholds (half the capacities), receives re-posted at once.
         *
         * @return the default configuration
         */
        public static Config defaults() {
            return new Config(64, 4, 16, 16, 4096, 1024, 32, 2, 0);
        }

        /**
         * This configuration with other data and ack capacities and the seed's thresholds for them.
         *
         * @param data Send(data) in flight at most
         * @param acks Send(ack) in flight at most, at least 2
         * @return the new configuration
         */
        public Config withCredits(int data, int acks) {
            return new Config(data, acks, readWr, writeWr, messageBytes, queueCapacity, data / 2, Math.max(1, acks / 2),
                    repostDelayNanos);
        }

        /**
         * This configuration with other thresholds.
         *
         * @param data acknowledge when more Send(data) than this have arrived
         * @param acks acknowledge when more Send(ack) than this have arrived
         * @return the new configuration
         */
        public Config withThresholds(int data, int acks) {
            return new Config(dataWr, ackWr, readWr, writeWr, messageBytes, queueCapacity, data, acks, repostDelayNanos);
        }

        /**
         * This configuration with other READ and WRITE quotas.
         *
         * @param reads READs in flight at most
         * @param writes WRITEs in flight at most
         * @return the new configuration
         */
        public Config withReadWrite(int reads, int writes) {
            return new Config(dataWr, ackWr, reads, writes, messageBytes, queueCapacity, dataThreshold, ackThreshold,
                    repostDelayNanos);
        }

        /**
         * This configuration with another message size and queue capacity.
         *
         * @param bytes the largest message
         * @param queued messages that may wait for credits
         * @return the new configuration
         */
        public Config withMessages(int bytes, int queued) {
            return new Config(dataWr, ackWr, readWr, writeWr, bytes, queued, dataThreshold, ackThreshold, repostDelayNanos);
        }

        /**
         * This configuration with receives re-posted late: a slow receiver.
         *
         * @param nanos how long after its completion a receive is re-posted, in the device's time
         * @return the new configuration
         */
        public Config withRepostDelay(long nanos) {
            return new Config(dataWr, ackWr, readWr, writeWr, messageBytes, queueCapacity, dataThreshold, ackThreshold, nanos);
        }

        int sendWr() {
            return dataWr + ackWr + readWr + writeWr;
        }

        int recvWr() {
            return dataWr + ackWr;
        }
    }

    /** Receives the channel's messages. */
    @FunctionalInterface
    public interface MessageHandler {
        /**
         * One message. The buffer is the receive buffer itself, valid only during the call: its
         * receive is re-posted when the call returns.
         *
         * @param message the message's bytes, position 0 to its length
         */
        void onMessage(ByteBuffer message);
    }

    /**
     * What the channel has done so far.
     *
     * @param queued messages waiting for credits now
     * @param sent Send(data) completed
     * @param received Send(data) received
     * @param acksSent Send(ack) posted
     * @param acksReceived Send(ack) received
     * @param stalls times a message had to wait because a credit was missing
     * @param reads RDMA READs completed
     * @param writes RDMA WRITEs completed
     * @param grantErrors Send(ack) messages that granted more credits than were outstanding: a
     *        protocol error, which fails the channel
     */
    public record Stats(int queued, long sent, long received, long acksSent, long acksReceived, long stalls, long reads,
            long writes, long grantErrors) {
    }

    /** An RDMA READ or WRITE waiting for its quota. */
    private record Transfer(boolean read, long localAddr, int length, int lkey, long remoteAddr, int rkey,
            CompletableFuture<Void> done) {
    }

    private static final Runnable NOTHING = () -> { };

    private final Config config;
    private final RdmaDevice device;
    private final io.rnic.core.time.Scheduler clock;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final ByteBuffer recvBuf;
    private final MemoryRegion recvMr;
    private final ByteBuffer[] recvViews;
    private final ByteBuffer sendBuf;
    private final MemoryRegion sendMr;
    private final ChannelCredits credits;
    private final int sendSlots;
    /** Message lengths of the send ring's slots; a slot is taken from offer until its SEND completes. */
    private final int[] slotLength;
    @SuppressWarnings("unchecked")
    private final CompletableFuture<Void>[] slotFuture;
    /** Send ring: [head, posted) posted and not completed, [posted, tail) waiting for credits. */
    private long head;
    private long posted;
    private long tail;
    private final ArrayDeque<Transfer> transfers = new ArrayDeque<>();
    private final ArrayDeque<Transfer> inFlightReads = new ArrayDeque<>();
    private final ArrayDeque<Transfer> inFlightWrites = new ArrayDeque<>();
    /** Receive slots completed and waiting for their delayed re-post, with their due times. */
    private final ArrayDeque<long[]> reposts = new ArrayDeque<>();
    private final SendWorkRequest swr = new SendWorkRequest();
    private final RecvWorkRequest rwr = new RecvWorkRequest();
    private final WorkCompletion[] wcs = new WorkCompletion[32];
    private MessageHandler handler = m -> { };
    private boolean stalled;
    private final int signalEvery;
    private int unsignaledRun;
    private RuntimeException failure;
    private long sent;
    private long received;
    private long acksSent;
    private long acksReceived;
    private long stalls;
    private long reads;
    private long writes;
    private long grantErrors;
    private int maxReadsInFlight;
    private int maxWritesInFlight;

    private CreditChannel(ProtectionDomain pd, Config config) {
        this.config = config;
        this.device = pd.device();
        this.clock = device.wire().scheduler();
        this.credits = new ChannelCredits(config.dataWr(), config.ackWr(), config.dataThreshold(), config.ackThreshold());
        // max_cqe = max_send_wr + max_recv_wr: every work request can complete without an overflow.
        this.cq = device.createCq(config.sendWr() + config.recvWr());
        this.qp = pd.createQp(QpInitAttributes.rc(cq, cq)
                .withCaps(new QpCaps(config.sendWr(), config.recvWr(), 1, 1, 0)));
        this.recvBuf = ByteBuffer.allocateDirect(config.messageBytes() * config.recvWr());
        this.recvMr = pd.registerMemory(recvBuf, AccessFlags.LOCAL_WRITE);
        this.recvViews = new ByteBuffer[config.recvWr()]; // one view per receive buffer: delivery allocates nothing
        for (int i = 0; i < recvViews.length; i++) {
            recvViews[i] = recvBuf.slice(i * config.messageBytes(), config.messageBytes());
        }
        this.sendSlots = config.dataWr() + config.queueCapacity();
        this.signalEvery = Math.max(1, config.dataWr() / 4);
        this.sendBuf = ByteBuffer.allocateDirect(config.messageBytes() * sendSlots);
        this.sendMr = pd.registerMemory(sendBuf, 0);
        this.slotLength = new int[sendSlots];
        @SuppressWarnings("unchecked")
        CompletableFuture<Void>[] f = new CompletableFuture[sendSlots];
        this.slotFuture = f;
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    /**
     * A channel on a new RC QP of {@code pd}, with its own completion queue and buffers; connect it
     * with {@link #connect}.
     *
     * @param pd the protection domain of the QP and the buffers
     * @param config the channel's sizes, the same on both sides
     * @return the channel, its QP in RESET
     */
    public static CreditChannel create(ProtectionDomain pd, Config config) {
        return new CreditChannel(pd, config);
    }

    /**
     * This side's connection information, for the peer's {@link #connect}.
     *
     * @param psn the first PSN this side sends with
     * @return the QP's GID, number and PSN
     */
    public ConnectionInfo localInfo(int psn) {
        return Connections.local(qp, psn, null);
    }

    /**
     * Connects to the peer's channel: posts every receive while the QP is in INIT (so that no
     * SEND can find the queue empty), then moves it to RTS.
     *
     * @param local this side's information, as given to the peer
     * @param remote the peer's information
     * @param options RC attributes (MTU, timeouts, retries; the RNR retry count never matters)
     * @param remotePort the UDP port of the peer's device (4791 normally)
     */
    public void connect(ConnectionInfo local, ConnectionInfo remote, RcOptions options, int remotePort) {
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(options.pkeyIndex()).port(1)
                .accessFlags(options.accessFlags()));
        for (int i = 0; i < config.recvWr(); i++) {
            postRecv(i);
        }
        Connections.connect(qp, local, remote, options, remotePort);
    }

    /**
     * {@link #connect(ConnectionInfo, ConnectionInfo, RcOptions, int)} to a peer on port 4791.
     *
     * @param local this side's information, as given to the peer
     * @param remote the peer's information
     * @param options RC attributes
     */
    public void connect(ConnectionInfo local, ConnectionInfo remote, RcOptions options) {
        connect(local, remote, options, io.rnic.verbs.AddressVector.ROCE_PORT);
    }

    /**
     * Sets the receiver of messages (replacing any earlier one); messages arrive during {@link #poll}.
     *
     * @param h the handler
     */
    public void onMessage(MessageHandler h) {
        this.handler = java.util.Objects.requireNonNull(h, "handler");
    }

    /**
     * Queues a copy of {@code message} (its remaining bytes) and sends it as soon as credits
     * allow, without waiting: at once if nothing is in flight, otherwise with the next
     * {@link #poll}, which posts what has queued as one batch with one completion (a busy channel
     * takes a completion per batch, not per message). Does not allocate.
     *
     * @param message the bytes to send; its position is not moved
     * @return false if {@link Config#queueCapacity} messages already wait (nothing is queued)
     * @throws IllegalArgumentException if the message is longer than {@link Config#messageBytes}
     * @throws io.rnic.verbs.RnicException if the channel has failed (a completion with an error status)
     */
    public boolean offer(ByteBuffer message) {
        return enqueue(message, null);
    }

    /**
     * Queues a copy of {@code message} like {@link #offer}; the future completes when its SEND
     * completes, or exceptionally if the channel fails first.
     *
     * @param message the bytes to send
     * @return the SEND's completion
     * @throws IllegalArgumentException if the message is too long
     * @throws java.util.concurrent.RejectedExecutionException if the queue is full
     * @throws io.rnic.verbs.RnicException if the channel has failed (a completion with an error status)
     */
    public CompletableFuture<Void> sendAsync(ByteBuffer message) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (!enqueue(message, f)) {
            throw new java.util.concurrent.RejectedExecutionException("channel queue full: " + config.queueCapacity()
                    + " messages wait for credits");
        }
        return f;
    }

    /**
     * Sends {@code message} and waits until its SEND has completed, driving the channel (and the
     * device, or the simulated network's time) meanwhile; waits for room if the queue is full.
     *
     * @param message the bytes to send
     * @param timeout how long to wait at most
     * @param unit the unit of {@code timeout}
     * @throws TimeoutException if the SEND has not completed in time (it may still be sent later)
     * @throws InterruptedException if the thread is interrupted
     * @throws io.rnic.verbs.RnicException if the channel fails
     */
    public void send(ByteBuffer message, long timeout, TimeUnit unit) throws TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        CompletableFuture<Void> f = new CompletableFuture<>();
        while (!enqueue(message, f)) {
            waitForWork(deadline);
        }
        while (!f.isDone()) {
            waitForWork(deadline);
        }
        if (f.isCompletedExceptionally()) {
            f.join(); // throws the failure
        }
    }

    private void waitForWork(long deadline) throws TimeoutException, InterruptedException {
        if (poll() > 0) {
            return;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new TimeoutException("channel did not finish in time: " + this);
        }
        long wait = Math.min(left, 100_000_000L);
        if (!reposts.isEmpty()) {
            wait = Math.max(0, Math.min(wait, reposts.peek()[0] - clock.nanoTime()));
        }
        if (!cq.await(wait) && device.wire().virtualTime() && reposts.isEmpty()) {
            // On the simulated network an await that found nothing means nothing is left to happen.
            throw new IllegalStateException("the simulated network went idle with the channel waiting: " + this);
        }
    }

    /**
     * Queues an RDMA WRITE of local memory to the peer's; it leaves within the WRITE quota.
     *
     * @param localAddr address in a registered region of this side
     * @param length bytes
     * @param lkey that region's local key
     * @param remoteAddr the peer's address
     * @param rkey the peer's region's remote key
     * @return completes when the WRITE completes
     */
    public CompletableFuture<Void> write(long localAddr, int length, int lkey, long remoteAddr, int rkey) {
        return transfer(false, localAddr, length, lkey, remoteAddr, rkey);
    }

    /**
     * Queues an RDMA READ of the peer's memory into local memory; it leaves within the READ quota.
     *
     * @param localAddr address in a registered region of this side, with local write access
     * @param length bytes
     * @param lkey that region's local key
     * @param remoteAddr the peer's address
     * @param rkey the peer's region's remote key
     * @return completes when the READ completes
     */
    public CompletableFuture<Void> read(long localAddr, int length, int lkey, long remoteAddr, int rkey) {
        return transfer(true, localAddr, length, lkey, remoteAddr, rkey);
    }

    private CompletableFuture<Void> transfer(boolean read, long localAddr, int length, int lkey, long remoteAddr, int rkey) {
        checkHealthy();
        CompletableFuture<Void> f = new CompletableFuture<>();
        transfers.add(new Transfer(read, localAddr, length, lkey, remoteAddr, rkey, f));
        pump();
        return f;
    }

    private boolean enqueue(ByteBuffer message, CompletableFuture<Void> future) {
        checkHealthy();
        int len = message.remaining();
        if (len > config.messageBytes()) {
            throw new IllegalArgumentException("message of " + len + " bytes exceeds the channel's " + config.messageBytes());
        }
        if (tail - head >= sendSlots) {
            return false;
        }
        int slot = (int) (tail % sendSlots);
        sendBuf.put(slot * config.messageBytes(), message, message.position(), len);
        slotLength[slot] = len;
        slotFuture[slot] = future;
        tail++;
        if (posted == head) {
            pump(); // nothing in flight: leave now; otherwise the next poll posts a batch
        }
        return true;
    }

    /**
     * Does the channel's work: takes completions, delivers messages, re-posts receives, sends
     * what credits allow and acknowledges what is due.
     *
     * @return how many completions it took (0 if none was waiting)
     * @throws io.rnic.verbs.RnicException if the channel has failed (a completion with an error status)
     */
    public int poll() {
        checkHealthy();
        int total = 0;
        int n;
        while ((n = cq.poll(wcs)) > 0) {
            for (int i = 0; i < n; i++) {
                complete(wcs[i]);
            }
            total += n;
            checkHealthy();
        }
        repostDue();
        pump();
        return total;
    }

    private void complete(WorkCompletion wc) {
        long id = wc.wrId();
        if (!wc.isSuccess()) {
            fail(new IllegalStateException("channel QP 0x" + Integer.toHexString(qp.qpn()) + " failed: " + wc));
            return;
        }
        switch ((int) ((id & KIND) >>> 56)) {
            case 1 -> {
                // RC completes in order: a signaled SEND's completion covers the unsignaled ones before it.
                long last = id & ~KIND;
                while (head <= last) {
                    credits.dataCompleted();
                    int slot = (int) (head % sendSlots);
                    CompletableFuture<Void> f = slotFuture[slot];
                    slotFuture[slot] = null;
                    head++;
                    sent++;
                    if (f != null) {
                        f.complete(null);
                    }
                }
            }
            case 2 -> credits.ackCompleted();
            case 3 -> {
                reads++;
                inFlightReads.poll().done().complete(null);
            }
            case 4 -> {
                writes++;
                inFlightWrites.poll().done().complete(null);
            }
            case 5 -> {
                int slot = (int) (id & ~KIND);
                boolean ack = (wc.wcFlags() & WorkCompletion.WITH_IMM) != 0;
                if (ack) {
                    acksReceived++;
                } else {
                    received++;
                    ByteBuffer view = recvViews[slot];
                    view.clear().limit(wc.byteLen());
                    handler.onMessage(view);
                }
                if (config.repostDelayNanos() == 0) {
                    reposted(slot, ack, wc.immData());
                } else {
                    reposts.add(new long[] {clock.nanoTime() + config.repostDelayNanos(), slot, ack ? 1 : 0, wc.immData()});
                    // Nothing to do at the timer: it keeps a simulated network's time running until then.
                    clock.schedule(config.repostDelayNanos(), NOTHING);
                }
            }
            default -> throw new IllegalStateException("completion of unknown work request 0x" + Long.toHexString(id));
        }
    }

    /** Re-posts a receive, then counts its message: the peer's credit exists once the receive does. */
    private void reposted(int slot, boolean ack, int imm) {
        postRecv(slot);
        if (!ack) {
            credits.dataReceived();
        } else if (!credits.ackReceived(imm)) {
            // Taking it would let this side overrun the peer's receives (an RNR error, or RNR
            // retries forever with nothing reported): the channel can no longer trust its peer.
            grantErrors++;
            fail(new io.rnic.verbs.RnicException("channel QP 0x" + Integer.toHexString(qp.qpn()) + ": "
                    + credits.describeExcessGrant(imm)));
        }
    }

    private void repostDue() {
        long now = reposts.isEmpty() ? 0 : clock.nanoTime();
        while (!reposts.isEmpty() && reposts.peek()[0] - now <= 0) {
            long[] r = reposts.poll();
            reposted((int) r[1], r[2] != 0, (int) r[3]);
        }
    }

    /** Sends what the credits allow: queued messages, queued transfers, a due acknowledgement. */
    private void pump() {
        if (failure != null) {
            return; // a failed channel sends nothing more
        }
        boolean progress = true;
        while (progress) {
            progress = false;
            if (posted < tail) {
                if (credits.takeData()) {
                    int slot = (int) (posted % sendSlots);
                    // A completion per quarter of the data credits, for the last message of a batch,
                    // and for one whose future waits on it: fewer completions to take, and none owed
                    // forever (an unsignaled SEND completes with the next signaled one).
                    boolean signaled = ++unsignaledRun >= signalEvery || posted + 1 == tail || slotFuture[slot] != null;
                    if (signaled) {
                        unsignaledRun = 0;
                    }
                    qp.postSend(swr.reset().wrId(DATA | posted).opcode(WrOpcode.SEND).signaled(signaled)
                            .sge(sendMr.address() + (long) slot * config.messageBytes(), slotLength[slot], sendMr.lkey()));
                    posted++;
                    stalled = false;
                    progress = true;
                } else if (!stalled) {
                    stalled = true;
                    stalls++;
                }
            }
            Transfer t = transfers.peek();
            if (t != null) {
                ArrayDeque<Transfer> inFlight = t.read() ? inFlightReads : inFlightWrites;
                if (inFlight.size() < (t.read() ? config.readWr() : config.writeWr())) {
                    transfers.poll();
                    inFlight.add(t);
                    if (t.read()) {
                        maxReadsInFlight = Math.max(maxReadsInFlight, inFlight.size());
                    } else {
                        maxWritesInFlight = Math.max(maxWritesInFlight, inFlight.size());
                    }
                    qp.postSend(swr.reset().wrId(t.read() ? READ : WRITE).opcode(t.read() ? WrOpcode.RDMA_READ : WrOpcode.RDMA_WRITE)
                            .signaled(true).sge(t.localAddr(), t.length(), t.lkey()).rdma(t.remoteAddr(), t.rkey()));
                    progress = true;
                }
            }
            if (credits.ackDue(posted < tail)) {
                int imm = credits.takeAck();
                qp.postSend(swr.reset().wrId(ACK).opcode(WrOpcode.SEND_WITH_IMM).signaled(true).imm(imm));
                acksSent++;
                progress = true;
            }
        }
    }

    private void postRecv(int slot) {
        qp.postRecv(rwr.reset().wrId(RECV | slot)
                .sge(recvMr.address() + (long) slot * config.messageBytes(), config.messageBytes(), recvMr.lkey()));
    }

    private void fail(RuntimeException e) {
        if (failure != null) {
            return;
        }
        failure = e;
        for (long i = head; i < tail; i++) {
            CompletableFuture<Void> f = slotFuture[(int) (i % sendSlots)];
            if (f != null) {
                f.completeExceptionally(e);
            }
        }
        for (ArrayDeque<Transfer> q : java.util.List.of(transfers, inFlightReads, inFlightWrites)) {
            for (Transfer t : q) {
                t.done().completeExceptionally(e);
            }
        }
    }

    private void checkHealthy() {
        if (failure != null) {
            throw new io.rnic.verbs.RnicException("the channel has failed", failure);
        }
    }

    /**
     * What the channel has done so far.
     *
     * @return a snapshot of its counters
     */
    public Stats stats() {
        return new Stats((int) (tail - posted), sent, received, acksSent, acksReceived, stalls, reads, writes, grantErrors);
    }

    /** RDMA READs (or WRITEs) posted and not completed. */
    int transfersInFlight(boolean read) {
        return (read ? inFlightReads : inFlightWrites).size();
    }

    /** The most READs (or WRITEs) ever in flight at once. */
    int maxTransfersInFlight(boolean read) {
        return read ? maxReadsInFlight : maxWritesInFlight;
    }

    /**
     * Send(data) messages completed so far, without making a {@link Stats}.
     *
     * @return the count
     */
    public long messagesSent() {
        return sent;
    }

    /**
     * Send(data) messages received so far, without making a {@link Stats}.
     *
     * @return the count
     */
    public long messagesReceived() {
        return received;
    }

    /**
     * The credits as they stand, for tests and diagnostics.
     *
     * @return the live accounting (do not change it)
     */
    public ChannelCredits credits() {
        return credits;
    }

    /**
     * The channel's QP, for diagnostics; post nothing to it directly.
     *
     * @return the RC QP
     */
    public QueuePair qp() {
        return qp;
    }

    /**
     * The channel's completion queue, sized {@code send + receive} work requests.
     *
     * @return the CQ
     */
    public CompletionQueue cq() {
        return cq;
    }

    /**
     * The configuration the channel was made with.
     *
     * @return the configuration
     */
    public Config config() {
        return config;
    }

    @Override
    public String toString() {
        return "CreditChannel(QP 0x" + Integer.toHexString(qp.qpn()) + ", " + credits + ", queued " + (tail - posted) + ")";
    }

    /** Destroys the QP, its buffers' regions and the CQ. */
    @Override
    public void close() {
        qp.close();
        recvMr.close();
        sendMr.close();
        cq.close();
    }
}
