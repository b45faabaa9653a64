package io.rnic.verbs.cm;

import io.rnic.verbs.RdmaDevice;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.List;

/**
 * An rdma_cm event channel ({@code struct rdma_event_channel}) over a set of devices: the IDs
 * created here may use any of them (the one whose address an ID binds to or resolves from), and
 * report their events here in order.
 *
 * <p>Waiting follows the devices' threading, as {@link io.rnic.verbs.CompletionChannel} does: on
 * the simulated network {@link #getEvent} runs the network in virtual time until an event is
 * ready; on a device its application drives, it runs that device's duty cycles; otherwise it
 * sleeps until the protocol thread delivers one.
 */
public final class CmEventChannel implements AutoCloseable {
    private final List<RdmaDevice> devices;
    private final ArrayDeque<CmEvent> events = new ArrayDeque<>();
    private volatile boolean closed;

    private CmEventChannel(List<RdmaDevice> devices) {
        this.devices = devices;
    }

    /**
     * Creates a channel for IDs on {@code devices} ({@code rdma_create_event_channel}; librdmacm
     * finds devices by address, this library by the list it is given).
     *
     * @param devices the devices IDs may bind to, the first being the default
     * @return the channel
     * @throws IllegalArgumentException if no device is given
     */
    public static CmEventChannel create(RdmaDevice... devices) {
        java.util.Objects.requireNonNull(devices, "devices");
        if (devices == null || devices.length == 0) {
            throw new IllegalArgumentException("an event channel needs at least one device");
        }
        for (RdmaDevice d : devices) {
            if (d == null) {
                throw new IllegalArgumentException("an event channel's devices must not be null");
            }
        }
        return new CmEventChannel(List.of(devices));
    }

    /**
     * Creates an ID that reports here ({@code rdma_create_id}).
     *
     * @param portSpace TCP for connected QPs, UDP for UD
     * @param context   an application object carried by the ID, or {@code null}
     * @return the ID, in state IDLE
     */
    public CmId createId(PortSpace portSpace, Object context) {
        java.util.Objects.requireNonNull(portSpace, "portSpace");
        if (closed) {
            throw new IllegalStateException("the event channel is closed");
        }
        if (portSpace == null) {
            throw new IllegalArgumentException("a port space is required");
        }
        return new CmId(this, portSpace, context);
    }

    /** @return the devices this channel's IDs may use */
    public List<RdmaDevice> devices() {
        return devices;
    }

    /**
     * What the connection manager of this channel's devices received, dropped and refused, and
     * the IDs and address handles it holds: a snapshot, added up over the devices (each device's
     * counts are shared by every channel on it).
     *
     * @return the counts; zeros for a device whose connection manager has not started
     */
    public CmCounters counters() {
        CmCounters sum = CmCounters.NONE;
        for (RdmaDevice d : devices) {
            CmAgent a = CmAgent.peek(d);
            if (a != null && !d.isClosed()) {
                sum = sum.plus(a.call(a::counters));
            }
        }
        return sum;
    }

    /**
     * Waits for the next event ({@code rdma_get_cm_event}).
     *
     * @param timeoutNanos how long to wait at most
     * @return the event, or {@code null} if none came in time
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    public CmEvent getEvent(long timeoutNanos) throws InterruptedException {
        CmEvent e = pollEvent();
        if (e != null) {
            return e;
        }
        for (RdmaDevice d : devices) {
            if (d.wire().virtualTime() || d.isCallerDriven()) {
                // This thread is what moves the device: drive it while waiting.
                d.driveUntil(this::hasEvent, timeoutNanos);
                return pollEvent();
            }
        }
        synchronized (this) {
            long deadline = System.nanoTime() + timeoutNanos;
            while (events.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                wait(left / 1_000_000, (int) (left % 1_000_000));
            }
            return events.poll();
        }
    }

    /**
     * Takes the next event if one is ready, without waiting or driving any device.
     *
     * @return the event, or {@code null}
     */
    public synchronized CmEvent pollEvent() {
        return events.poll();
    }

    private synchronized boolean hasEvent() {
        return !events.isEmpty();
    }

    synchronized void deliver(CmEvent e) {
        events.add(e);
        notifyAll();
    }

    /** The channel's device with {@code address}; the first for a wildcard or null address. */
    RdmaDevice deviceFor(InetAddress address) {
        if (address == null || address.isAnyLocalAddress()) {
            return devices.get(0);
        }
        for (RdmaDevice d : devices) {
            if (d.gid().toInetAddress().equals(address)) {
                return d;
            }
        }
        return null;
    }

    /** Closes the channel ({@code rdma_destroy_event_channel}); events not taken are dropped. */
    @Override
    public synchronized void close() {
        closed = true;
        events.clear();
    }

    @Override
    public String toString() {
        return "CmEventChannel" + devices.stream().map(d -> d.gid().toInetAddress().getHostAddress()).toList();
    }
}
