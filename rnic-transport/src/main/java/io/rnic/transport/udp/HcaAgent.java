package io.rnic.transport.udp;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ManualIoEventLoop;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.Future;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that runs one or more HCAs' UDP wires, in the style of an Aeron agent: a duty cycle
 * reads every ready datagram (in batches), runs the doorbells the application rang and the
 * timers that are due, and then flushes all output once; between cycles with nothing to do it
 * idles as its {@link Idle} strategy says.
 *
 * <p>Three ways to run it ({@link Threading}): a thread of its own ({@link #dedicated}), one
 * thread shared by every HCA of the JVM that asks for it ({@link #shared}), or no thread at all
 * ({@link #invoker}): the application thread that creates it drives the duty cycle itself
 * whenever it polls a completion queue or waits for one, so a post, the protocol and the
 * completion run on one thread with no hand-off.
 *
 * <p>The duty cycle is Netty's {@link ManualIoEventLoop}: on native epoll one cycle is one
 * {@code epoll_wait} (non-blocking unless idle) and batched {@code recvmmsg}/{@code sendmmsg}.
 */
public final class HcaAgent implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HcaAgent.class);
    private static final AtomicInteger THREADS = new AtomicInteger();
    /** Idle cycles a backoff agent spins before it yields, and yields before it blocks. */
    static final int BACKOFF_SPINS = 100;
    static final int BACKOFF_YIELDS = 50;
    private static HcaAgent sharedAgent;
    /** Doorbells the ring holds; beyond that they go to the event loop's own queue. */
    static final int DOORBELLS = 4096;
    /** The longest a blocking cycle sleeps before it looks again (a safety net, not a timer). */
    static final long MAX_BLOCK_NANOS = 10_000_000;

    /** Which thread runs the duty cycle. */
    public enum Threading {
        /** A thread of its own, per agent (per HCA unless agents are passed around). */
        DEDICATED,
        /** One thread for every HCA of the JVM that asks for the shared agent. */
        SHARED,
        /** The application thread that created the agent, whenever it polls or waits. */
        INVOKER
    }

    /** What an agent does when a duty cycle found nothing to do. */
    public enum Idle {
        /** Runs the next cycle at once: the lowest latency, a whole core. */
        SPIN,
        /** Spins a while, then yields a while, then blocks in the poller until I/O or a doorbell. */
        BACKOFF,
        /** Blocks in the poller at once: the least CPU, a wake-up per doorbell. */
        BLOCK
    }

    private final Threading threading;
    private final Idle idle;
    private final AgentLoop loop;
    /** Posted work (doorbells) and verbs' tasks, drained at the start of every duty cycle. */
    private final DoorbellRing doorbells = new DoorbellRing(DOORBELLS);
    /** The wires an invoker agent flushes at its cycle's edges (replaced whole when one comes or goes). */
    private volatile UdpWire[] wires = new UdpWire[0];
    private final Thread thread;
    private final boolean nativeTransport;
    private int users;
    private volatile boolean running = true;
    private int idleCycles;
    private int cyclesSinceEpoll;
    /** Cycles that do not wait ask epoll once in this many; the others read the receive sockets directly. */
    static final int EPOLL_EVERY = 8;
    /** ... and at the latest in this many, however busy the receive sockets are. */
    static final int EPOLL_AT_LATEST = 64;
    /** The most wires an agent reads directly; with more, a read per wire per cycle costs more than epoll. */
    static final int DIRECT_READ_WIRES = 2;
    private long invokerWait = -1;

    private HcaAgent(Threading threading, Idle idle, boolean preferNative) {
        this.threading = Objects.requireNonNull(threading, "threading");
        this.idle = Objects.requireNonNull(idle, "idle");
        this.nativeTransport = preferNative && Epoll.isAvailable();
        IoHandlerFactory io = nativeTransport ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        if (threading == Threading.INVOKER) {
            this.thread = null;
            this.loop = new AgentLoop(Thread.currentThread(), io, doorbells);
        } else {
            // Netty's thread type: its buffer pool and recycler keep per-thread caches only for it.
            this.thread = new io.netty.util.concurrent.FastThreadLocalThread(this::runDutyCycles,
                    "rnic-agent-" + THREADS.incrementAndGet());
            this.thread.setDaemon(true);
            this.loop = new AgentLoop(thread, io, doorbells);
            this.thread.start();
        }
    }

    /** An agent with a thread of its own. */
    public static HcaAgent dedicated(Idle idle) {
        return new HcaAgent(Threading.DEDICATED, idle, true);
    }

    /** As {@link #dedicated(Idle)}, on NIO even where native epoll is available. */
    public static HcaAgent dedicated(Idle idle, boolean preferNative) {
        return new HcaAgent(Threading.DEDICATED, idle, preferNative);
    }

    /**
     * The JVM's shared agent: one thread for every wire that asks for it. It is started by the
     * first wire and stops when the last one closes; {@code idle} applies when it starts.
     */
    public static synchronized HcaAgent shared(Idle idle) {
        if (sharedAgent == null || !sharedAgent.running) {
            sharedAgent = new HcaAgent(Threading.SHARED, idle, true);
        }
        return sharedAgent;
    }

    /**
     * An agent without a thread, driven by the calling thread: only that thread may use the
     * devices on it, and nothing happens on their wires unless it polls or waits ({@code idle}
     * says how it waits).
     */
    public static HcaAgent invoker(Idle idle) {
        return new HcaAgent(Threading.INVOKER, idle, true);
    }

    /** Makes an agent of the given threading. */
    public static HcaAgent of(Threading threading, Idle idle) {
        return switch (threading) {
            case DEDICATED -> dedicated(idle);
            case SHARED -> shared(idle);
            case INVOKER -> invoker(idle);
        };
    }

    public Threading threading() {
        return threading;
    }

    public Idle idle() {
        return idle;
    }

    /** True if the agent runs on native epoll rather than NIO. */
    public boolean isNative() {
        return nativeTransport;
    }

    ManualIoEventLoop loop() {
        return loop;
    }

    /** True if the calling thread is the one that runs this agent's duty cycle. */
    public boolean inAgentThread() {
        return loop.inEventLoop();
    }

    /** True if no thread of the agent's own runs it: its owner must call {@link #doWork}. */
    public boolean isInvoker() {
        return threading == Threading.INVOKER;
    }

    /**
     * Runs one duty cycle on the calling thread, which must be the agent's: reads what is ready,
     * runs doorbells and due timers, flushes output. With {@code waitNanos} ≥ 0 it first waits
     * for work up to that long (0: until there is some); with -1 it does not wait.
     *
     * @return how much work the cycle did (0 if it found none)
     * @throws IllegalStateException from any other thread
     */
    public int doWork(long waitNanos) {
        if (!loop.inEventLoop()) {
            throw new IllegalStateException("agent " + this + " is driven by its own thread; "
                    + Thread.currentThread().getName() + " cannot run its duty cycle");
        }
        int work = doorbells.drain(onTaskFailure);
        if (threading == Threading.INVOKER) {
            // The application's new requests and what the last cycle held back leave together.
            endOfCycle(false);
        }
        if (waitNanos < 0 || work > 0) {
            work += runWithoutWaiting();
        } else {
            work += loop.run(waitNanos == 0 ? MAX_BLOCK_NANOS : Math.min(waitNanos, MAX_BLOCK_NANOS));
        }
        if (threading == Threading.INVOKER) {
            // Only a spinning invoker holds ACKs back: it is about to run its next cycle. One that
            // idles in other ways may be away long, and an unsent ACK would cost its peer a retry.
            endOfCycle(idle == Idle.SPIN);
        }
        return work;
    }

    /**
     * A cycle that does not wait: reads the wires' receive sockets directly, runs the loop's
     * tasks and due timers, and asks epoll (for every other socket and the wake-up event) only
     * after {@link #EPOLL_EVERY} such cycles and one that read nothing (after
     * {@link #EPOLL_AT_LATEST} regardless), so a busy or spinning agent makes one system call per
     * read where epoll would make two. The source-port sockets, which receive nothing but
     * errors, wait those cycles. An agent with more than {@link #DIRECT_READ_WIRES} wires asks
     * epoll every cycle: one system call finds the ready sockets among many.
     */
    private int runWithoutWaiting() {
        UdpWire[] w = wires;
        if (!nativeTransport || w.length == 0 || w.length > DIRECT_READ_WIRES) {
            return loop.runNow();
        }
        int work = 0;
        for (int i = 0; i < w.length; i++) {
            work += w[i].readDirect();
        }
        // Not right after a read that found packets, unless epoll has waited long: the cycle's
        // packets are then on their way to the application without a system call in between.
        int since = ++cyclesSinceEpoll;
        if (since >= EPOLL_EVERY && (work == 0 || since >= EPOLL_AT_LATEST)) {
            cyclesSinceEpoll = 0;
            work += loop.runNow();
        } else {
            work += loop.runNonBlockingTasks(0); // tasks and due timers: every cycle, as epoll's cycles run them
        }
        return work;
    }

    private void endOfCycle(boolean holdAcks) {
        UdpWire[] w = wires;
        for (int i = 0; i < w.length; i++) {
            w[i].endOfCycle(holdAcks);
        }
    }

    /**
     * Hands {@code task} to the duty cycle: the doorbell ring, or the event loop's queue when the
     * ring is full; wakes a blocked agent. Any thread.
     */
    void ring(Runnable task) {
        if (!doorbells.offer(task)) {
            loop.execute(task);
            return;
        }
        if (!loop.inEventLoop()) {
            loop.wakeup();
        }
    }

    /** Made once: a method reference evaluated in {@link #doWork} would be a new object every cycle. */
    private final java.util.function.Consumer<RuntimeException> onTaskFailure = this::taskFailed;

    private void taskFailed(RuntimeException e) {
        LOG.warn("a task on agent {} failed", this, e);
    }

    /** Netty's manual loop that will not block while doorbells wait in the ring. */
    private static final class AgentLoop extends ManualIoEventLoop {
        private final DoorbellRing doorbells;

        AgentLoop(Thread owner, IoHandlerFactory io, DoorbellRing doorbells) {
            super(owner, io);
            this.doorbells = doorbells;
        }

        @Override
        protected boolean canBlock() {
            return doorbells.isEmpty();
        }
    }

    /**
     * Runs one duty cycle for an invoker that is waiting for something: the cycle waits for
     * work only when the idle strategy has come to blocking (then at most {@code maxWaitNanos}),
     * and spins or yields before that.
     */
    public int doWorkIdling(long maxWaitNanos) {
        int work = doWork(invokerWait < 0 ? -1 : Math.max(1, maxWaitNanos));
        invokerWait = nextWait(work);
        return work;
    }

    /**
     * One duty cycle after an idle one, as the idle strategy says: how long the next cycle may
     * wait (-1 not at all, 0 until there is work), spinning or yielding first.
     */
    long nextWait(int work) {
        if (work > 0) {
            idleCycles = 0;
            return -1;
        }
        switch (idle) {
            case SPIN -> {
                Thread.onSpinWait();
                return -1;
            }
            case BLOCK -> {
                return 0;
            }
            default -> {
                int n = ++idleCycles;
                if (n < BACKOFF_SPINS) {
                    Thread.onSpinWait();
                    return -1;
                }
                if (n < BACKOFF_SPINS + BACKOFF_YIELDS) {
                    Thread.yield();
                    return -1;
                }
                return 0;
            }
        }
    }

    /**
     * Waits for {@code f} to finish: drives the duty cycle while waiting if the caller is the
     * agent's invoker, blocks otherwise.
     */
    <T> Future<T> await(Future<T> f) {
        if (loop.inEventLoop()) {
            while (!f.isDone()) {
                loop.runNow();
            }
            return f;
        }
        if (isInvoker()) {
            throw new IllegalStateException("agent " + this + " is driven by " + "its creating thread; "
                    + Thread.currentThread().getName() + " cannot wait for it");
        }
        return f.awaitUninterruptibly();
    }

    private void runDutyCycles() {
        long wait = -1;
        while (running) {
            int work;
            try {
                work = doWork(wait);
            } catch (Throwable t) {
                // Nothing may end the agent but close(): log and carry on.
                LOG.warn("agent {} duty cycle failed", this, t);
                work = 1;
            }
            wait = nextWait(work);
        }
        loop.shutdownGracefully(0, 0, TimeUnit.NANOSECONDS);
        while (!loop.isTerminated()) {
            loop.runNow();
        }
    }

    /** A wire starts using this agent. */
    synchronized void retain(UdpWire wire) {
        users++;
        UdpWire[] w = java.util.Arrays.copyOf(wires, wires.length + 1);
        w[w.length - 1] = wire;
        wires = w;
    }

    /** A wire stops using this agent (before {@link #release}). */
    synchronized void forget(UdpWire wire) {
        wires = java.util.Arrays.stream(wires).filter(w -> w != wire).toArray(UdpWire[]::new);
    }

    /** A wire stops using this agent; the shared agent stops when its last wire leaves. */
    void release() {
        boolean stop;
        synchronized (this) {
            stop = --users <= 0 && threading == Threading.SHARED;
        }
        if (stop) {
            synchronized (HcaAgent.class) {
                if (sharedAgent == this) {
                    sharedAgent = null;
                }
            }
            close();
        }
    }

    /**
     * Stops the agent: its thread (if it has one) finishes its cycle and ends; an invoker agent
     * shuts its poller down at once. Wires still on it stop receiving.
     */
    @Override
    public void close() {
        if (!running) {
            return;
        }
        running = false;
        if (thread != null) {
            loop.wakeup();
            if (Thread.currentThread() != thread) {
                try {
                    thread.join(5_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        } else if (loop.inEventLoop()) {
            loop.shutdownGracefully(0, 0, TimeUnit.NANOSECONDS);
            while (!loop.isTerminated()) {
                loop.runNow();
            }
        }
    }

    @Override
    public String toString() {
        return "HcaAgent[" + threading.name().toLowerCase() + ", " + idle.name().toLowerCase()
                + (nativeTransport ? ", epoll]" : ", nio]");
    }
}
