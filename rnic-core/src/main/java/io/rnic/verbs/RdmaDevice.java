package io.rnic.verbs;

import io.rnic.core.hca.Hca;
import io.rnic.core.wire.Wire;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * An emulated RDMA device with one port, attached to a {@link Wire} (the simulated network or
 * UDP). The entry point of the verbs API: query it, allocate protection domains, create
 * completion queues, and listen for asynchronous events.
 *
 * <pre>{@code
 * try (RdmaDevice dev = RdmaDevice.open(UdpWire.bind("127.0.0.2").open())) { ... }
 * }</pre>
 *
 * <p>Threading: the device's protocol work runs on the wire's thread. Posting work requests and
 * polling completion queues may be done from any thread; calls that change QP state are handed
 * to the protocol thread and wait for it.
 */
public final class RdmaDevice implements AutoCloseable {
    private static final long SYNC_TIMEOUT_SECONDS = 30;

    private final Wire wire;
    private final Hca hca;
    private final DeviceConfig config;
    private final AtomicInteger nextPd = new AtomicInteger(1);
    private final AtomicInteger nextXrcd = new AtomicInteger(1);
    private final AtomicInteger nextRdd = new AtomicInteger(1);
    private final java.util.Map<String, io.rnic.core.engine.XrcDomainContext> xrcDomains = new java.util.HashMap<>();
    private final AtomicInteger nextCq = new AtomicInteger(1);
    private final List<Consumer<AsyncEvent>> listeners = new CopyOnWriteArrayList<>();
    private final List<AsyncEvent> unhandled = new CopyOnWriteArrayList<>();
    private volatile boolean closed;
    /**
     * Orders the close against what must not overlap it: a QP or EE context joining the device
     * (it would miss the close's flush), and a change run at once because the device is closed.
     */
    private final Object closeLock = new Object();
    /**
     * The device's QPs and EE contexts not destroyed, and its CQs, for close: sets, so that
     * creating or closing one costs the same however many the device has.
     */
    private final java.util.Set<io.rnic.core.engine.QpContext> contexts =
            java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final java.util.Set<CompletionQueue> completionQueues = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** The device's other objects not yet closed (PDs, MRs, MWs, SRQs, AHs), for {@link #resources()}. */
    private final java.util.Set<Object> tracked = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Tables that layers above the device add to {@link #resources()} (the connection manager's CM IDs). */
    private final List<Supplier<ResourceTable>> resourceProviders = new CopyOnWriteArrayList<>();
    /** The device's MXBean's name while registered, or null. */
    private final javax.management.ObjectName mxBean;

    private RdmaDevice(Wire wire, DeviceConfig config) {
        this.wire = wire;
        this.config = config;
        // The wire is the core's packet sink as it is.
        // Keys: the configuration's source, else the wire's seed (a seeded simulated network gives
        // the same bytes every run), else a securely seeded one (real networks).
        java.util.random.RandomGenerator keys = config.keyRandom() != null ? config.keyRandom()
                : wire.seed().isPresent() ? new java.util.SplittableRandom(wire.seed().getAsLong()) : null;
        this.hca = keys == null
                ? new Hca(wire.localAddress().getAddress(), config.limits(), config.pkeys(), wire.scheduler(), wire)
                : new Hca(wire.localAddress().getAddress(), config.limits(), config.pkeys(), wire.scheduler(), wire, keys);
        hca.icrcPolicy(config.icrcPolicy());
        hca.congestionControl(config.congestionControl());
        if (config.ecn() != EcnMode.AUTO) { // AUTO: the HCA asks the wire (ECN where the network marks)
            hca.ecn(config.ecn() == EcnMode.ON);
        }
        hca.pitfalls().silence(config.pitfallWarningsOff());
        if (config.strictMode()) {
            // Seeded like the keys: the wire's seed on a seeded simulated network, so a failure replays.
            hca.undefinedBehaviour(io.rnic.core.hca.UndefinedBehaviour.strict(wire.seed().isPresent()
                    ? wire.seed().getAsLong() * 0x9E3779B97F4A7C15L + wire.localAddress().hashCode()
                    : new java.security.SecureRandom().nextLong()));
        }
        hca.asyncListener(this::dispatch);
        wire.receiver(hca.wireReceiver());
        this.mxBean = DeviceMXBeans.register(this);
    }

    /**
     * Opens a device on {@code wire} with the default configuration
     * ({@link DeviceConfig#defaults()}). The device owns the wire and closes it.
     *
     * @param wire the wire the device sends and receives RoCEv2 packets through; its local
     *             address is the device's GID
     * @return the open device
     * @throws NullPointerException if {@code wire} is null
     */
    public static RdmaDevice open(Wire wire) {
        return open(wire, DeviceConfig.defaults());
    }

    /**
     * Opens a device on {@code wire}. The device owns the wire and closes it.
     *
     * @param wire   the wire the device sends and receives RoCEv2 packets through; its local
     *               address is the device's GID
     * @param config limits, P_Key table, ICRC policy and memory key source
     * @return the open device
     * @throws NullPointerException if {@code wire} or {@code config} is null
     */
    public static RdmaDevice open(Wire wire, DeviceConfig config) {
        java.util.Objects.requireNonNull(wire, "wire");
        java.util.Objects.requireNonNull(config, "config");
        return new RdmaDevice(wire, config);
    }

    private void dispatch(AsyncEvent e) {
        if (listeners.isEmpty()) {
            unhandled.add(e);
        }
        for (Consumer<AsyncEvent> l : listeners) {
            l.accept(e);
        }
    }

    /**
     * Adds a listener of asynchronous events ({@code ibv_get_async_event}): CQ overflow, QP
     * errors, SQ drained, SRQ limit reached, last WQE reached. Listeners run on the thread that
     * raised the event, usually the protocol thread: keep them short.
     *
     * @param listener called once per event
     * @throws NullPointerException if {@code listener} is null
     */
    public void addAsyncEventListener(Consumer<AsyncEvent> listener) {
        listeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    /**
     * The events raised while no listener was registered, so that none is lost before the
     * application adds one.
     *
     * @return a snapshot of those events, oldest first
     */
    public List<AsyncEvent> unhandledEvents() {
        return List.copyOf(unhandled);
    }

    /**
     * The wire this device is attached to: its local address, its protocol thread's scheduler,
     * and its taps for capturing packets.
     *
     * @return the wire
     */
    public Wire wire() {
        return wire;
    }

    /** The protocol core behind the device; outside this package, {@code io.rnic.core.hca.HcaAccess} (unsupported). */
    Hca hca() {
        return hca;
    }

    static {
        io.rnic.core.hca.HcaAccess.install(d -> ((RdmaDevice) d).hca);
    }

    /**
     * How often this device met pitfall {@code p} ({@link Pitfall}): every occurrence, whether it was
     * logged (once per object) or not.
     *
     * @param p the pitfall
     * @return its occurrences so far
     */
    public long pitfallCount(Pitfall p) {
        java.util.Objects.requireNonNull(p, "p");
        return hca.pitfalls().count(p);
    }

    /**
     * A snapshot of every object of the device, as {@code rdma resource show} lists a real
     * device's: its PDs, memory regions and windows, CQs, QPs with their live PSNs and queue use,
     * SRQs, address handles, XRC domains and EE contexts, and what layers above it contribute
     * ({@link #addResourceProvider}: the connection manager's CM IDs). The snapshot is taken on
     * the protocol thread, between two packets, so that every value belongs to one instant;
     * {@link DeviceResources#toString()} prints it as aligned tables and
     * {@link DeviceResources#toJson()} as JSON. On a closed device it shows what is left.
     *
     * <p>On the simulated network, which runs on the thread that drives it, that thread is the
     * protocol thread: call this from it, or from another thread (a JMX client) while the network
     * is idle.
     *
     * @return the snapshot
     * @throws IllegalStateException if the device is driven by its application's thread (invoker
     *     threading) and this is another thread
     */
    public DeviceResources resources() {
        if (closed) {
            synchronized (closeLock) {
                return ResourceSnapshot.take(this, resourceProviders);
            }
        }
        return onProtocolThread(() -> ResourceSnapshot.take(this, resourceProviders));
    }

    /**
     * Adds a table to every later {@link #resources()} snapshot: a layer above the device (the
     * connection manager) contributes the objects it keeps for this device. {@code provider}
     * runs on the protocol thread while the snapshot is taken; a table of a kind the snapshot
     * already has, with the same columns, adds its rows to it.
     *
     * @param provider makes the table; it must not block
     * @throws NullPointerException if {@code provider} is null
     */
    public void addResourceProvider(Supplier<ResourceTable> provider) {
        resourceProviders.add(java.util.Objects.requireNonNull(provider, "provider"));
    }

    /** An object of the device was created: the resource view lists it until {@link #untrack}. */
    void track(Object o) {
        tracked.add(o);
    }

    /** An object of the device was closed. */
    void untrack(Object o) {
        tracked.remove(o);
    }

    java.util.Set<Object> trackedObjects() {
        return tracked;
    }

    java.util.Set<io.rnic.core.engine.QpContext> qpContexts() {
        return contexts;
    }

    java.util.Set<CompletionQueue> completionQueues() {
        return completionQueues;
    }

    java.util.Map<String, io.rnic.core.engine.XrcDomainContext> xrcDomainsByName() {
        synchronized (xrcDomains) {
            return new java.util.TreeMap<>(xrcDomains);
        }
    }

    /**
     * The device's counters, with rxe's names where they exist ({@code sent_pkts},
     * {@code retry_exceeded_err}, ...) and counters of its own (NAKs sent, local ACK timeouts,
     * packets dropped by cause).
     *
     * @return the live counters
     */
    public Counters counters() {
        return hca.counters();
    }

    /**
     * What the device supports ({@code ibv_query_device}), from its configured limits.
     *
     * @return the device attributes
     */
    public DeviceAttributes queryDevice() {
        var l = config.limits();
        return new DeviceAttributes(0xFFFFFF, l.maxQp(), l.maxQpWr(), l.maxSge(), l.maxCq(), l.maxCqe(), l.maxMr(),
                l.maxMrSize(), l.maxQpRdAtom(), l.maxQpRdAtom(), l.maxPd(), l.maxQpWr(), l.maxSge(), l.maxSrq(),
                l.maxAh());
    }

    /**
     * What its one port reports ({@code ibv_query_port} for port 1), with the GID table.
     *
     * @return the port attributes
     */
    public PortAttributes queryPort() {
        var l = config.limits();
        return new PortAttributes("ACTIVE", l.maxMtu(), l.activeMtu(), List.of(gid()), config.pkeys().size(),
                l.maxMessageSize());
    }

    /**
     * The device's GID at index 0: the RoCEv2 GID of the wire's local address, which peers
     * address the device by.
     *
     * @return the GID
     */
    public Gid gid() {
        return Gid.of(wire.localAddress().getAddress());
    }

    /**
     * Allocates a protection domain ({@code ibv_alloc_pd}).
     *
     * @return the new PD
     * @throws IllegalStateException if the device is closed, or has all the PDs it may have
     *     ({@code max_pd})
     */
    public ProtectionDomain allocPd() {
        checkOpen();
        hca.reserve(io.rnic.core.hca.DeviceResource.PD);
        return new ProtectionDomain(this, new io.rnic.core.memory.ProtectionDomain(nextPd.getAndIncrement()));
    }

    /**
     * Allocates a reliable datagram domain ({@code AllocateRDD}, IBA 11.2.1.7) for RD QPs and
     * the EE contexts that carry their messages.
     *
     * @return the new domain
     * @throws IllegalStateException if the device is closed
     */
    public ReliableDatagramDomain allocRdd() {
        checkOpen();
        return new ReliableDatagramDomain(this, new io.rnic.core.engine.RddContext(nextRdd.getAndIncrement()));
    }

    /**
     * Opens the XRC domain called {@code name} on this device, creating it if no opener holds it
     * ({@code ibv_open_xrcd} with {@code O_CREAT}): openers of the same name share one domain,
     * as processes opening the same file do.
     *
     * @param name the name openers share the domain by
     * @return a handle on the domain; close it when done
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalStateException if the device is closed
     */
    public XrcDomain openXrcd(String name) {
        java.util.Objects.requireNonNull(name, "name");
        checkOpen();
        if (name == null) {
            throw new IllegalArgumentException("an XRC domain needs a name");
        }
        synchronized (xrcDomains) {
            io.rnic.core.engine.XrcDomainContext d = xrcDomains.get(name);
            if (d != null) {
                d.open();
            } else {
                d = new io.rnic.core.engine.XrcDomainContext(nextXrcd.getAndIncrement());
                xrcDomains.put(name, d);
            }
            return new XrcDomain(this, name, d);
        }
    }

    void closeXrcd(XrcDomain handle) {
        synchronized (xrcDomains) {
            if (handle.core.close()) {
                xrcDomains.remove(handle.name());
            }
        }
    }

    /**
     * Creates a completion queue with room for {@code cqe} completions and no completion channel
     * ({@code ibv_create_cq}).
     *
     * @param cqe the capacity, 1 to the device's {@code max_cqe}
     * @return the new CQ
     * @throws IllegalArgumentException if {@code cqe} is out of range
     * @throws IllegalStateException if the device is closed, or has all the CQs it may have
     *     ({@code max_cq})
     */
    public CompletionQueue createCq(int cqe) {
        return createCq(cqe, null);
    }

    /**
     * Creates a completion queue whose notifications go to {@code channel}
     * ({@code ibv_create_cq} with a {@code channel}).
     *
     * @param cqe     the capacity, 1 to the device's {@code max_cqe}
     * @param channel where notifications armed by {@link CompletionQueue#requestNotify} go, or
     *                {@code null} for none
     * @return the new CQ
     * @throws IllegalArgumentException if {@code cqe} is out of range
     * @throws IllegalStateException if the device is closed, or has all the CQs it may have
     *     ({@code max_cq})
     */
    public CompletionQueue createCq(int cqe, CompletionChannel channel) {
        return createCq(new CqInitAttributes(cqe, channel, false));
    }

    /**
     * Creates a completion queue as {@code attrs} say ({@code ibv_create_cq_ex}): with a
     * completion channel, and with completion timestamps if asked for.
     *
     * @param attrs the capacity, the completion channel if any, and whether completions carry
     *              their timestamps
     * @return the new CQ
     * @throws NullPointerException if {@code attrs} is null
     * @throws IllegalArgumentException if the capacity is out of range
     * @throws IllegalStateException if the device is closed, or has all the CQs it may have
     *     ({@code max_cq})
     */
    public CompletionQueue createCq(CqInitAttributes attrs) {
        java.util.Objects.requireNonNull(attrs, "attrs");
        int cqe = attrs.cqe();
        CompletionChannel channel = attrs.channel();
        checkOpen();
        if (cqe < 1 || cqe > config.limits().maxCqe()) {
            throw new IllegalArgumentException("cqe " + cqe + " is outside 1.." + config.limits().maxCqe());
        }
        hca.reserve(io.rnic.core.hca.DeviceResource.CQ); // the ring below is the CQ's memory: counted first
        io.rnic.core.engine.CompletionQueue core;
        try {
            core = new io.rnic.core.engine.CompletionQueue(nextCq.getAndIncrement(), cqe);
        } catch (RuntimeException | Error e) {
            hca.release(io.rnic.core.hca.DeviceResource.CQ);
            throw e;
        }
        core.overflowHandler(q -> hca.raise(new AsyncEvent(AsyncEvent.Type.CQ_ERR, q.id(),
                "completion queue " + q.id() + " overflowed (" + q.capacity() + " entries)")));
        if (channel != null) {
            core.notifier(channel::deliver);
        }
        if (attrs.completionTimestamps()) {
            core.timestamps(wire.scheduler()); // the wire's clock: virtual time on the simulated network
        }
        CompletionQueue cq = new CompletionQueue(this, core, channel, attrs.completionTimestamps());
        completionQueues.add(cq);
        return cq;
    }

    /**
     * Creates a completion channel ({@code ibv_create_comp_channel}), for threads that wait for
     * completions instead of polling.
     *
     * @return the new channel
     * @throws IllegalStateException if the device is closed
     */
    public CompletionChannel createCompletionChannel() {
        checkOpen();
        return new CompletionChannel();
    }

    /**
     * Modifies a QP or EE context: opens the UDP flow the modify needs here (the protocol thread
     * must not block on a bind), then applies a copy of {@code attrs} on the protocol thread.
     */
    void modify(io.rnic.core.engine.QpContext context, QpAttributes attrs, int mask) {
        int flow = context.flowToOpen(attrs, mask);
        if (flow >= 0) {
            wire.openFlow(flow);
        }
        QpAttributes copy = new QpAttributes().copyFrom(attrs);
        onProtocolThread(() -> {
            context.modify(copy, mask);
            return null;
        });
    }

    /** Destroys a QP or EE context on the protocol thread, or at once if the device is closed. */
    void destroy(io.rnic.core.engine.QpContext context) {
        onProtocolThreadWhileOpen(context::destroy);
    }

    /**
     * Injects an error ({@link Injection}): it takes the path the real error takes, on the
     * protocol thread, and this call returns once it has (its events raised, the QPs in ERR; the
     * flushed completions follow as the device writes them).
     *
     * @param injection what to inject
     * @throws IllegalArgumentException if the injection's object belongs to another device
     * @throws IllegalStateException if the device is closed, or (a local protection error) no
     *     send work request waits to start on the QP
     */
    public void inject(Injection injection) {
        java.util.Objects.requireNonNull(injection, "injection");
        RdmaDevice owner = injection.device();
        if (owner != null && owner != this) {
            throw new IllegalArgumentException(injection + " concerns an object of " + owner + ", not of " + this);
        }
        checkOpen();
        onProtocolThread(() -> {
            List<io.rnic.core.engine.QpContext> open;
            synchronized (closeLock) {
                open = List.copyOf(contexts);
            }
            injection.apply(this, open);
            return null;
        });
    }

    /** Raises {@code event} to the device's listeners, as the HCA raises its own. */
    void raise(AsyncEvent event) {
        hca.raise(event);
    }

    /**
     * Runs {@code change} on the protocol thread, waiting for it, or at once if the device is
     * closed: no protocol thread runs then, so nothing else touches what it changes. A QP's
     * teardown and a memory key's deregistration come this way, between two packets.
     */
    void onProtocolThreadWhileOpen(Runnable change) {
        if (closed) {
            synchronized (closeLock) { // not in the middle of the close's flush
                change.run();
            }
            return;
        }
        onProtocolThread(() -> {
            change.run();
            return null;
        });
    }

    /** Runs {@code work} on the protocol thread and returns its result, waiting if needed. */
    <T> T onProtocolThread(Supplier<T> work) {
        if (wire.scheduler().inOwnerThread()) {
            return work.get();
        }
        if (wire.callerDriven()) {
            throw new IllegalStateException("device " + gid() + " is driven by the thread that created its agent"
                    + " (invoker threading); call it from that thread, not " + Thread.currentThread().getName());
        }
        CompletableFuture<T> f = new CompletableFuture<>();
        wire.scheduler().execute(() -> {
            try {
                f.complete(work.get());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        try {
            return f.get(SYNC_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new RnicException("the protocol thread failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the protocol thread", e);
        } catch (TimeoutException e) {
            throw new RnicException("the protocol thread did not answer within " + SYNC_TIMEOUT_SECONDS + " s", e);
        }
    }

    /**
     * Runs one duty cycle of the device's wire on the calling thread, if the device is driven by
     * its application (a UDP wire on an invoker {@code HcaAgent}), first waiting up to
     * {@code waitNanos} for work (0: until there is some; -1: not at all). Polling and waiting on
     * the device's completion queues call it; an application that waits for something else
     * (memory it expects a peer to write) calls it in its loop.
     *
     * @param waitNanos how long to wait for work first: a positive time in nanoseconds, 0 to wait
     *                  until there is some, -1 not to wait
     * @return the work done (packets and timers handled); 0 on a device with a thread of its own
     */
    public int progress(long waitNanos) {
        return wire.progress(waitNanos);
    }

    /**
     * Waits until {@code ready} holds, moving the device meanwhile if this thread is what moves
     * it: on the simulated network it runs the network in virtual time, on a caller-driven device
     * it runs duty cycles. A device with a thread of its own moves without help, so the call
     * returns at once with {@code ready}'s value and the caller waits its own way.
     *
     * @param ready        the condition
     * @param timeoutNanos how long to wait at most (virtual nanoseconds on the simulated network)
     * @return whether {@code ready} holds
     * @throws InterruptedException if the thread is interrupted while it drives the device
     */
    public boolean driveUntil(java.util.function.BooleanSupplier ready, long timeoutNanos)
            throws InterruptedException {
        java.util.Objects.requireNonNull(ready, "ready");
        if (wire.virtualTime()) {
            return wire.runUntil(ready, timeoutNanos);
        }
        if (!wire.callerDriven()) {
            return ready.getAsBoolean();
        }
        long deadline = System.nanoTime() + timeoutNanos;
        while (!ready.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            wire.progress(Math.min(left, MAX_DRIVE_WAIT_NANOS));
        }
        return true;
    }

    /** A blocking duty cycle wakes at least this often to look at the clock and the condition. */
    private static final long MAX_DRIVE_WAIT_NANOS = 1_000_000;

    /**
     * Tells whether the device's wire is driven by the application's thread (see
     * {@link #progress}), rather than by a thread of its own.
     *
     * @return true for a caller-driven device
     */
    public boolean isCallerDriven() {
        return wire.callerDriven();
    }

    /**
     * Tells whether {@link #close} has run.
     *
     * @return true once the device is closed
     */
    public boolean isClosed() {
        return closed;
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("device " + gid() + " is closed");
        }
    }

    /**
     * Closes the device and its wire, as a device being removed: every QP and EE context of the
     * device moves to ERR, whatever its state, so that every work request they accepted
     * completes with WR_FLUSH_ERR before this returns (a post racing the close either comes
     * first and is flushed, or throws); threads waiting on its completion queues wake.
     * Afterwards every object of the device can still be closed, its completion queues can be
     * polled for what the close flushed, and what describes the device ({@link #queryDevice},
     * {@link #queryPort}, {@link #counters}, a QP's {@code state()}) still answers; every other
     * use of the device or one of its objects throws {@link IllegalStateException} naming the
     * closed device.
     *
     * <p>On a device driven by its application's thread, the flush runs only if that thread
     * closes it: another thread's close cannot reach the protocol, and only closes the wire.
     */
    @Override
    public void close() {
        List<io.rnic.core.engine.QpContext> open;
        synchronized (closeLock) {
            if (closed) {
                return;
            }
            closed = true;
            open = List.copyOf(contexts);
        }
        String reason = "device " + gid() + " is closed";
        if (!open.isEmpty() && (!wire.callerDriven() || wire.scheduler().inOwnerThread())) {
            try {
                onProtocolThread(() -> {
                    synchronized (closeLock) {
                        for (io.rnic.core.engine.QpContext qp : open) {
                            try {
                                qp.deviceClosed(reason);
                            } catch (RuntimeException e) { // one QP's failure leaves the others to flush
                                hca.counters().inc(Counter.INTERNAL_ERRORS);
                            }
                        }
                    }
                    return null;
                });
            } catch (RuntimeException e) {
                // The protocol thread is gone or refused: nothing is left to flush the work.
            }
        }
        DeviceMXBeans.unregister(mxBean);
        wire.close();
        for (CompletionQueue cq : completionQueues) {
            cq.core.destroy(); // no more completions will come: waiters wake
        }
    }

    /** A CQ was destroyed: it is no longer the device's to wake at close, nor counted against max_cq. */
    void forget(CompletionQueue cq) {
        if (completionQueues.remove(cq)) {
            hca.release(io.rnic.core.hca.DeviceResource.CQ);
        }
    }

    /** A QP or EE context was destroyed: the close has nothing to flush on it. */
    void forget(io.rnic.core.engine.QpContext qp) {
        contexts.remove(qp);
    }

    /**
     * A QP or EE context was created: the close will move it to ERR. One created while the device
     * closed is destroyed again at once, and its creation refused.
     *
     * @throws IllegalStateException if the device is closed
     */
    void remember(io.rnic.core.engine.QpContext qp) {
        synchronized (closeLock) {
            if (!closed) {
                contexts.add(qp);
                return;
            }
        }
        onProtocolThreadWhileOpen(qp::destroy);
        checkOpen();
    }

    @Override
    public String toString() {
        return "RdmaDevice[" + wire.localAddress() + "]";
    }
}
