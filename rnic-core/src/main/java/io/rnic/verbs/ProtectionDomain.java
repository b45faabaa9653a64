package io.rnic.verbs;

import io.rnic.core.engine.QpContext;
import java.nio.ByteBuffer;

/**
 * A protection domain ({@code ibv_pd}): memory regions and QPs that may be used together.
 * Closing it is refused while regions or QPs still belong to it.
 */
public final class ProtectionDomain implements AutoCloseable {
    private final RdmaDevice device;
    final io.rnic.core.memory.ProtectionDomain core;
    private volatile boolean closed;

    ProtectionDomain(RdmaDevice device, io.rnic.core.memory.ProtectionDomain core) {
        this.device = device;
        this.core = core;
        device.track(this);
    }

    /**
     * The device the PD was allocated on.
     *
     * @return the owning device
     */
    public RdmaDevice device() {
        return device;
    }

    /**
     * Registers the whole of {@code buffer}, from index 0 to its capacity ({@code ibv_reg_mr}).
     * The device reads and writes the buffer's bytes in place, as a NIC does host memory.
     *
     * @param buffer the memory to register; position and limit are not used
     * @param access {@link AccessFlags} bits: what this device's work requests and peers may do
     *               with it ({@code REMOTE_WRITE} and {@code REMOTE_ATOMIC} need {@code LOCAL_WRITE})
     * @return the region, with its virtual address and keys
     * @throws NullPointerException if {@code buffer} is null
     * @throws IllegalArgumentException if the access flags are invalid, or the region exceeds the
     *     device's {@code max_mr_size}
     * @throws IllegalStateException if the PD is closed or the device has no free region index
     */
    public MemoryRegion registerMemory(ByteBuffer buffer, int access) {
        java.util.Objects.requireNonNull(buffer, "buffer");
        return registerMemory(buffer, 0, buffer.capacity(), access);
    }

    /**
     * Registers {@code buffer[offset, offset + length)} (absolute; position and limit are not
     * used). The region gets a virtual address of its own; read it with {@link MemoryRegion#address()}.
     *
     * @param buffer the memory holding the region
     * @param offset index of the region's first byte in {@code buffer}
     * @param length the region's length in bytes
     * @param access {@link AccessFlags} bits: what this device's work requests and peers may do
     *               with it ({@code REMOTE_WRITE} and {@code REMOTE_ATOMIC} need {@code LOCAL_WRITE})
     * @return the region, with its virtual address and keys
     * @throws IllegalArgumentException if the range is outside the buffer, the access flags are
     *     invalid, or the region exceeds the device's {@code max_mr_size}
     * @throws IllegalStateException if the PD is closed or the device has no free region index
     */
    public MemoryRegion registerMemory(ByteBuffer buffer, int offset, int length, int access) {
        java.util.Objects.requireNonNull(buffer, "buffer");
        checkOpen();
        if (length > device.queryDevice().maxMrSize()) {
            throw new IllegalArgumentException("region of " + length + " bytes exceeds max_mr_size");
        }
        return new MemoryRegion(this, device.hca().keys().register(core, buffer, offset, length, access));
    }

    /**
     * Allocates a region without memory for fast registration through the send queue (the
     * kernel's {@code ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, ...)}).
     *
     * @param maxLength the largest length a registration of it may have
     * @return the region, free
     * @throws IllegalArgumentException if {@code maxLength} is not positive or exceeds max_mr_size
     * @throws IllegalStateException if the PD is closed or no region index is free
     */
    public FastMemoryRegion allocMr(int maxLength) {
        checkOpen();
        if (maxLength > device.queryDevice().maxMrSize()) {
            throw new IllegalArgumentException("region of " + maxLength + " bytes exceeds max_mr_size");
        }
        return new FastMemoryRegion(this, device.hca().keys().allocateFastRegion(core, maxLength));
    }

    /**
     * Allocates a memory window in this PD ({@code ibv_alloc_mw}).
     *
     * @param type 1 (bound with {@link QueuePair#bindMw}) or 2 (bound with a BIND_MW work request,
     *             to the QP that posts it)
     * @return the window, unbound
     * @throws IllegalArgumentException if {@code type} is not 1 or 2
     * @throws IllegalStateException if the PD is closed or no window index is free
     */
    public MemoryWindow allocMw(int type) {
        checkOpen();
        return new MemoryWindow(this, device.hca().keys().allocateWindow(core, type));
    }

    /**
     * Registers a mapped file as memory that can persist ({@code ibv_reg_mr} on pmem): the only
     * kind of region that may grant {@link AccessFlags#FLUSH_PERSISTENT}, and the one whose FLUSH
     * to persistence forces the mapped pages to storage ({@code MappedByteBuffer.force}). Map the
     * file {@code READ_WRITE} with {@code FileChannel.map}; the caller vouches that {@code file}
     * maps a file (Java cannot tell a file mapping from other direct memory).
     *
     * @param file   the mapping; the whole of it is registered
     * @param access {@link AccessFlags} bits, as for {@link #registerMemory(ByteBuffer, int)}
     * @return the region
     * @throws NullPointerException if {@code file} is null
     * @throws IllegalArgumentException if it is read-only with write rights, or
     *     the access flags are invalid
     * @throws IllegalStateException if the PD is closed or the device has no free region index
     */
    public MemoryRegion registerPersistentMemory(java.nio.MappedByteBuffer file, int access) {
        java.util.Objects.requireNonNull(file, "file");
        checkOpen();
        if (file == null) {
            throw new IllegalArgumentException("a mapped file is required");
        }
        if (file.capacity() > device.queryDevice().maxMrSize()) {
            throw new IllegalArgumentException("region of " + file.capacity() + " bytes exceeds max_mr_size");
        }
        return new MemoryRegion(this, device.hca().keys().register(core, file, 0, file.capacity(), access, true));
    }

    /**
     * Creates a queue pair in this PD ({@code ibv_create_qp}). The QP starts in RESET; bring it
     * to RTS with {@link Connections} or {@link QueuePair#modify}.
     *
     * @param init the QP's type, completion queues, queue sizes and SRQ, all of this PD's device
     * @return the new QP
     * @throws IllegalArgumentException if {@code init} is null, names CQs or an SRQ of another
     *     device, or asks for more than the device's limits
     * @throws IllegalStateException if the PD, the device or a CQ is closed
     */
    public QueuePair createQp(QpInitAttributes init) {
        java.util.Objects.requireNonNull(init, "init");
        checkOpen();
        device.checkOpen();
        if (init == null) {
            throw new IllegalArgumentException("QP init attributes are required");
        }
        if (Connections.throughEeContexts(init.type())) {
            throw new IllegalArgumentException("an RD QP belongs to a reliable datagram domain too: createRdQp(init, rdd)");
        }
        init.sendCq().checkOpen();
        if (init.recvCq() != null) {
            init.recvCq().checkOpen();
        }
        if (init.sendCq().device() != device || (init.recvCq() != null && init.recvCq().device() != device)
                || (init.srq() != null && init.srq().pd().device() != device)) {
            throw new IllegalArgumentException("the QP's CQs and SRQ must belong to its device " + device);
        }
        QpContext qp = QpContext.create(device.hca(), init.type(), core, init.sendCq().core,
                init.recvCq() == null ? null : init.recvCq().core,
                init.caps(), init.srq() == null ? null : init.srq().core, init.signalAll(), init.endToEndCredits(),
                init.congestionControl());
        device.remember(qp);
        return new QueuePair(device, this, init, qp);
    }

    /**
     * Creates a reliable datagram QP in this PD and reliable datagram domain {@code rdd} (IBA
     * 9.7.8): it sends each message through the EE context of {@code rdd} that its work
     * request names ({@link SendWorkRequest#rd}), to any RD QP behind that context's peer, and
     * receives from any context of {@code rdd}, checking the Q_Key as a UD QP does. Bring it up
     * with {@link Connections#readyRd}: INIT with a Q_Key and access flags, then RTR and RTS
     * with no PSN (its contexts have those).
     *
     * @param init the QP's CQs, queue sizes and SRQ; its type must be {@link QpType#RD}
     * @param rdd  the reliable datagram domain, of this PD's device
     * @return the new QP, in RESET
     * @throws IllegalArgumentException if {@code init} is not an RD QP's, or names objects of
     *     another device, or asks for more than the device's limits
     * @throws IllegalStateException if the PD, the domain, the device or a CQ is closed
     */
    public QueuePair createRdQp(QpInitAttributes init, ReliableDatagramDomain rdd) {
        java.util.Objects.requireNonNull(init, "init");
        java.util.Objects.requireNonNull(rdd, "rdd");
        checkOpen();
        device.checkOpen();
        if (init == null || !Connections.throughEeContexts(init.type()) || rdd == null) {
            throw new IllegalArgumentException("createRdQp takes RD QP init attributes (type RD) and a reliable "
                    + "datagram domain");
        }
        rdd.checkOpen();
        init.sendCq().checkOpen();
        init.recvCq().checkOpen();
        if (init.sendCq().device() != device || init.recvCq().device() != device || rdd.device() != device
                || (init.srq() != null && init.srq().pd().device() != device)) {
            throw new IllegalArgumentException("the QP's CQs, SRQ and RDD must belong to its device " + device);
        }
        QpContext qp = QpContext.createRd(device.hca(), core, init.sendCq().core, init.recvCq().core, init.caps(),
                init.srq() == null ? null : init.srq().core, init.signalAll(), rdd.core);
        device.remember(qp);
        return new QueuePair(device, this, init, qp);
    }

    /**
     * Creates a shared receive queue in this PD ({@code ibv_create_srq}) holding {@code maxWr}
     * receive WQEs of up to {@code maxSge} entries, armed at {@code srqLimit} (0: not armed).
     *
     * @param maxWr    receive WQEs the queue holds, 1 to the device's {@code max_srq_wr}
     * @param maxSge   scatter/gather entries per receive WQE, 1 to the device's {@code max_srq_sge}
     * @param srqLimit the number of posted WQEs below which {@code SRQ_LIMIT_REACHED} fires once;
     *                 0 leaves the limit unarmed
     * @return the new shared receive queue
     * @throws IllegalArgumentException if a size exceeds the device's or the limit exceeds max_wr
     * @throws IllegalStateException if the PD or the device is closed, or the device has all the
     *     SRQs it may have ({@code max_srq})
     */
    public SharedReceiveQueue createSrq(int maxWr, int maxSge, int srqLimit) {
        checkOpen();
        device.checkOpen();
        checkSrqSizes(maxWr, maxSge);
        return countedSrq(() -> new io.rnic.core.engine.SrqContext(device.hca(), core, maxWr, maxSge, srqLimit));
    }

    /** Creates an SRQ counted against the device's max_srq until it is closed. */
    private SharedReceiveQueue countedSrq(java.util.function.Supplier<io.rnic.core.engine.SrqContext> create) {
        device.hca().reserve(io.rnic.core.hca.DeviceResource.SRQ);
        try {
            return new SharedReceiveQueue(this, create.get());
        } catch (RuntimeException e) {
            device.hca().release(io.rnic.core.hca.DeviceResource.SRQ);
            throw e;
        }
    }

    /**
     * Creates an XRC shared receive queue in this PD ({@code ibv_create_srq_ex} with
     * {@code IBV_SRQT_XRC}): receive WQEs that SENDs arriving through any XRC target QP of
     * {@code xrcd} take when their XRCETH names this queue's number ({@link SharedReceiveQueue#srqn()},
     * {@code ibv_get_srq_num}). Those messages' memory accesses are checked against this PD
     * (o9-114.a7) and their completions go to {@code cq} (a9).
     *
     * @param xrcd     the XRC domain, of this PD's device
     * @param cq       where the completions of its WQEs go, of this PD's device
     * @param maxWr    receive WQEs the queue holds, 1 to the device's {@code max_srq_wr}
     * @param maxSge   scatter/gather entries per receive WQE, 1 to the device's {@code max_srq_sge}
     * @param srqLimit the number of posted WQEs below which {@code SRQ_LIMIT_REACHED} fires once;
     *                 0 leaves the limit unarmed
     * @return the new XRC SRQ
     * @throws IllegalArgumentException if the domain or CQ is null or of another device, or a size
     *     is out of range
     * @throws IllegalStateException if the PD, the domain, the CQ or the device is closed, or the
     *     device has all the SRQs it may have ({@code max_srq})
     */
    public SharedReceiveQueue createXrcSrq(XrcDomain xrcd, CompletionQueue cq, int maxWr, int maxSge, int srqLimit) {
        java.util.Objects.requireNonNull(xrcd, "xrcd");
        java.util.Objects.requireNonNull(cq, "cq");
        checkOpen();
        device.checkOpen();
        if (xrcd == null || cq == null) {
            throw new IllegalArgumentException("an XRC SRQ needs an XRC domain and a completion queue");
        }
        if (xrcd.device() != device || cq.device() != device) {
            throw new IllegalArgumentException("the XRC SRQ's domain and CQ must belong to its PD's device " + device);
        }
        xrcd.checkOpen();
        cq.checkOpen();
        checkSrqSizes(maxWr, maxSge);
        return countedSrq(() -> io.rnic.core.engine.SrqContext.xrc(device.hca(), core, xrcd.core, cq.core, maxWr,
                maxSge, srqLimit));
    }

    private void checkSrqSizes(int maxWr, int maxSge) {
        DeviceAttributes d = device.queryDevice();
        if (maxWr < 1 || maxWr > d.maxSrqWr()) {
            throw new IllegalArgumentException("SRQ max_wr " + maxWr + " is not in 1.." + d.maxSrqWr() + " (max_srq_wr)");
        }
        if (maxSge < 1 || maxSge > d.maxSrqSge()) {
            throw new IllegalArgumentException("SRQ max_sge " + maxSge + " is not in 1.." + d.maxSrqSge() + " (max_srq_sge)");
        }
    }

    /**
     * Creates an address handle in this PD ({@code ibv_create_ah}): the destination of datagram
     * work requests ({@link io.rnic.verbs.SendWorkRequest#ud}). Close it when done: it
     * keeps the PD in use.
     *
     * @param av the destination: its GID (IP address), UDP port, and the GRH fields to send with
     * @return the address handle
     * @throws NullPointerException if {@code av} is null
     * @throws IllegalStateException if the PD or the device is closed, or the device has all the
     *     address handles it may have ({@code max_ah})
     */
    public io.rnic.verbs.AddressHandle createAddressHandle(io.rnic.verbs.AddressVector av) {
        java.util.Objects.requireNonNull(av, "av");
        checkOpen();
        if (av == null) {
            throw new IllegalArgumentException("an address handle needs an address vector");
        }
        device.hca().reserve(io.rnic.core.hca.DeviceResource.AH);
        io.rnic.verbs.AddressHandle[] made = new io.rnic.verbs.AddressHandle[1];
        made[0] = io.rnic.verbs.AddressHandle.create(core, av, () -> {
            device.hca().release(io.rnic.core.hca.DeviceResource.AH);
            device.untrack(made[0]);
        });
        device.track(made[0]);
        return made[0];
    }

    void checkOpen() {
        device.checkOpen(); // a closed device's PD makes nothing, whatever it is asked for
        if (closed) {
            throw new IllegalStateException("protection domain " + core.id() + " is closed");
        }
    }

    /**
     * Deallocates the PD ({@code ibv_dealloc_pd}). Closing it again does nothing.
     *
     * @throws IllegalStateException while memory regions, QPs, SRQs or address handles of the PD
     *     exist (the PD stays open)
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (core.isInUse()) {
            throw new IllegalStateException("protection domain " + core.id() + " is in use by " + core.useCount()
                    + " memory region(s), QP(s), SRQ(s) or address handle(s)");
        }
        closed = true;
        device.hca().release(io.rnic.core.hca.DeviceResource.PD);
        device.untrack(this);
    }

    @Override
    public String toString() {
        return "PD#" + core.id();
    }
}
