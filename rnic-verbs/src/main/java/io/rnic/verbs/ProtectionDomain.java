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
        QpContext qp = device.hca().createQp(init.type(), core, init.sendCq().core, init.recvCq().core, init.caps(),
                init.signalAll(), init.endToEndCredits());
        return new QueuePair(device, this, init, qp);
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
                    + " memory region(s) or QP(s)");
        }
        closed = true;
    }

    @Override
    public String toString() {
        return "PD#" + core.id();
    }
}
