package io.rnic.core.time;

/**
 * A per-owner timer that is re-armed, not re-created: one object for the life of its owner (a
 * QP's pacing timer), set again and again to the next instant its task should run. Made by
 * {@link Scheduler#alarm}; used on the owner thread only.
 *
 * <p>The task runs at or after the instant last {@link #set}, on the owner thread. It may also run
 * earlier, at an instant set before and since moved later: a task must check whether what it
 * waits for is due, and set the alarm again if not. That is what lets a scheduler keep one
 * queued event per alarm and never cancel it.
 */
public interface Alarm {
    /**
     * Runs the task at {@code atNanos} (scheduler time), or as soon as possible if that has passed.
     *
     * @param atNanos the instant
     */
    void set(long atNanos);
}
