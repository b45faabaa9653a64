package io.rnic.core.time;

/**
 * Runs tasks after a delay on the thread that owns the protocol state (the HCA's event loop, or
 * the simulator's single thread). Used for the local ACK timeout and the RNR timer.
 */
public interface Scheduler extends Clock {
    /**
     * Runs {@code task} once, {@code delayNanos} from now (0 means as soon as possible, after
     * the current task).
     *
     * @return a handle that can cancel the task before it runs
     */
    Timer schedule(long delayNanos, Runnable task);

    /**
     * Hands {@code task} to the owner thread, to run after the current task. Safe to call from
     * any thread on a real wire; a simulated network has one thread, which is the owner.
     */
    void execute(Runnable task);

    /** True if the calling thread is the one that owns the protocol state. */
    boolean inOwnerThread();

    /**
     * True if this scheduler's time is virtual (the simulated network's): it passes only as the
     * network runs, so a timeout in it says nothing of a host's load. False for real time.
     */
    default boolean virtualTime() {
        return false;
    }

    /**
     * A timer for {@code task} that its owner re-arms ({@link Alarm#set}) rather than re-creates.
     * This default schedules a task per arming that moves the alarm earlier, and none for one
     * that moves it later (the task, which then runs early, sets it again); a scheduler that can
     * keep one event per alarm (the simulator's) allocates nothing.
     *
     * @param task what to run, on the owner thread
     * @return the alarm, not yet set
     */
    default Alarm alarm(Runnable task) {
        java.util.Objects.requireNonNull(task, "task");
        Scheduler scheduler = this;
        return new Alarm() {
            private final Runnable fire = this::fire;
            private boolean pending;
            private long pendingAt;

            @Override
            public void set(long atNanos) {
                if (pending && pendingAt - atNanos <= 0) {
                    return; // it fires no later than asked; the task sets it again if still early
                }
                pending = true;
                pendingAt = atNanos;
                scheduler.schedule(Math.max(0, atNanos - scheduler.nanoTime()), fire);
            }

            private void fire() {
                if (pending && scheduler.nanoTime() - pendingAt >= 0) {
                    pending = false;
                }
                task.run();
            }
        };
    }

    /** A scheduled task. */
    interface Timer {
        /** Prevents the task from running if it has not run yet; returns true if it was pending. */
        boolean cancel();
    }
}
