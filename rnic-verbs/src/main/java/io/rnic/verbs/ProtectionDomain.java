package io.rnic.verbs;

import io.rnic.core.memory.AccessFlags;
import io.rnic.core.transport.QpContext;
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
    }

    public RdmaDevice device() {
        return device;
    }

    /** Registers the whole of {@code buffer} (its capacity) with {@link AccessFlags} {@code access}. */
    public MemoryRegion registerMemory(ByteBuffer buffer, int access) {
        if (buffer == null) {
            throw new IllegalArgumentException("buffer is required");
        }
        return registerMemory(buffer, 0, buffer.capacity(), access);
    }

    /**
     * Registers {@code buffer[offset, offset + length)} (absolute; position and limit are not
     * used). The region gets a virtual address of its own; read it with {@link MemoryRegion#address()}.
     */
    public MemoryRegion registerMemory(ByteBuffer buffer, int offset, int length, int access) {
        checkOpen();
        if (length > device.queryDevice().maxMrSize()) {
            throw new IllegalArgumentException("region of " + length + " bytes exceeds max_mr_size");
        }
        return new MemoryRegion(this, device.hca().keys().register(core, buffer, offset, length, access));
    }

    /** Creates a queue pair in this PD. */
    public QueuePair createQp(QpInitAttributes init) {
        checkOpen();
        device.checkOpen();
        if (init == null) {
            throw new IllegalArgumentException("QP init attributes are required");
        }
        init.sendCq().checkOpen();
        init.recvCq().checkOpen();
        if (init.sendCq().device() != device || init.recvCq().device() != device
                || (init.srq() != null && init.srq().pd().device() != device)) {
            throw new IllegalArgumentException("the QP's CQs and SRQ must belong to its device " + device);
        }
        QpContext qp = QpContext.create(device.hca(), init.type(), core, init.sendCq().core, init.recvCq().core,
                init.caps(), init.srq() == null ? null : init.srq().core, init.signalAll(), init.endToEndCredits());
        QueuePair created = new QueuePair(device, this, init, qp);
        device.remember(created);
        return created;
    }

    /**
     * Creates a shared receive queue in this PD ({@code ibv_create_srq}) holding {@code maxWr}
     * receive WQEs of up to {@code maxSge} entries, armed at {@code srqLimit} (0: not armed).
     *
     * @throws IllegalArgumentException if a size exceeds the device's or the limit exceeds max_wr
     */
    public SharedReceiveQueue createSrq(int maxWr, int maxSge, int srqLimit) {
        checkOpen();
        device.checkOpen();
        DeviceAttributes d = device.queryDevice();
        if (maxWr < 1 || maxWr > d.maxSrqWr()) {
            throw new IllegalArgumentException("SRQ max_wr " + maxWr + " is not in 1.." + d.maxSrqWr() + " (max_srq_wr)");
        }
        if (maxSge < 1 || maxSge > d.maxSrqSge()) {
            throw new IllegalArgumentException("SRQ max_sge " + maxSge + " is not in 1.." + d.maxSrqSge() + " (max_srq_sge)");
        }
        return new SharedReceiveQueue(this, new io.rnic.core.transport.SrqContext(device.hca(), core, maxWr, maxSge,
                srqLimit));
    }

    /**
     * Creates an address handle in this PD ({@code ibv_create_ah}): the destination of datagram
     * work requests ({@link io.rnic.core.transport.SendWorkRequest#ud}). Close it when done.
     */
    public io.rnic.core.transport.AddressHandle createAddressHandle(io.rnic.core.qp.AddressVector av) {
        checkOpen();
        return io.rnic.core.transport.AddressHandle.create(core, av);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("protection domain " + core.id() + " is closed");
        }
    }

    /** Deallocates the PD ({@code ibv_dealloc_pd}); refused while it has regions or QPs. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (core.isInUse()) {
            throw new IllegalStateException("protection domain " + core.id() + " is in use by " + core.useCount()
                    + " memory region(s), QP(s), SRQ(s) or address handle(s)");
        }
        closed = true;
    }

    @Override
    public String toString() {
        return "PD#" + core.id();
    }
}
