package io.rnic.core.cc;

/**
 * The congestion-control seam: one instance per QP (per EE context for RD), told what the QP
 * sends and hears, answering when its next data packet may leave and how many bytes may be in
 * flight.
 *
 * <h2>Time</h2>
 * Every method that can change state takes the current time in nanoseconds: virtual time on the
 * simulator, the event loop's monotonic clock on a real wire. An instance never reads a clock, so
 * it is deterministic: the same calls with the same times give the same answers, bit for bit.
 * Times passed to one instance must not decrease; a call with an earlier time than the previous
 * one throws {@link IllegalArgumentException}.
 *
 * <h2>Timers are evaluated lazily</h2>
 * DCQCN has per-QP periodic timers (the α timer, the rate-increase timer, and in the NIC variant
 * the rate-decrease check). Thousands of QPs with 55 µs timers would put tens of millions of
 * events per simulated second on the wire's scheduler, so no implementation here schedules
 * anything. Instead every call first applies, in time order, every timer expiry due at or before
 * the time passed in (an expiry at exactly {@code nowNanos} happens before the event being
 * reported), using closed forms where an idle stretch spans many periods: α·(1 − g)<sup>k</sup>
 * for k quiet α periods, and the rate recurrence's closed form for a run of identical increase
 * steps. The state after a call is therefore what an eager implementation, with a timer event per
 * expiry, would hold at that instant (to floating-point rounding).
 *
 * <p>The one place where laziness could show is pacing: a sender waiting out a long gap at a low
 * rate would, with eager timers, see a rate increase that falls due during the gap shorten the
 * gap. {@link #earliestSend} accounts for that exactly: it looks ahead through the timer expiries
 * that fall before the answer (on a scratch copy of the state, without committing them) and
 * returns the first instant at which the packet may leave given the rate in force at that
 * instant. It can only be wrong if a new input arrives before that instant (a CNP, an ACK with an
 * RTT sample), which is why the requester asks again after reporting one.
 *
 * <h2>Pacing</h2>
 * A rate-based scheme spaces packet departures by the time the previous packet would take at the
 * current rate: the packet sent at t<sub>k</sub> with b<sub>k</sub> bytes lets the next one leave
 * at t<sub>k</sub> + 8·b<sub>k</sub>/R, with R the rate in force when the next packet is
 * considered (a rate change during the gap re-times it, as HPCC's simulator does in
 * {@code RdmaHw::ChangeRate}). Fractions of a nanosecond are carried over, not rounded away, so a
 * sender that sends whenever allowed averages exactly R.
 *
 * <h2>Allocation</h2>
 * The per-packet methods ({@link #onSend}, {@link #onAck}, {@link #onCnp}, {@link #earliestSend},
 * {@link #windowBytes}, {@link #advanceTo}) allocate nothing.
 */
public interface CongestionControl {

    /** No congestion control: the rate is unlimited and so is the window. Stateless, so shared. */
    CongestionControl NONE = NoCongestionControl.INSTANCE;

    /**
     * A data packet left: a first transmission or a retransmission (both are rate limited; ACKs
     * and CNPs are not and are not reported).
     *
     * @param nowNanos when it left
     * @param bytes its size on the wire as the scheme should count it (at least 1)
     */
    void onSend(long nowNanos, int bytes);

    /**
     * An ACK or NAK arrived for this QP.
     *
     * @param nowNanos when it arrived
     * @param rttNanos the round-trip time the requester measured from the departure of the packet
     *        it acknowledges (the requester knows when each PSN left), or -1 if it has none (an ACK
     *        for a retransmitted PSN, whose send time is ambiguous)
     */
    void onAck(long nowNanos, long rttNanos);

    /**
     * A congestion notification packet (BTH opcode 0x81) arrived for this QP.
     *
     * @param nowNanos when it arrived
     */
    void onCnp(long nowNanos);

    /**
     * When the next data packet may leave: {@code nowNanos} or later. Exact for the state as it
     * is: timer expiries before the answer are taken into account (see the class comment). Ask
     * again after any {@link #onAck}/{@link #onCnp}, which can move the answer either way.
     *
     * @param nowNanos the current time
     * @param bytes the size of the packet that wants to leave; the rate schemes here space a
     *        packet after its predecessor by the predecessor's size (as the DCQCN authors' and
     *        HPCC's simulators do) and do not use it, but a scheme that reserves before sending
     *        (a token bucket with a burst allowance) needs it, so the seam carries it
     * @return the earliest time, at or after {@code nowNanos}, at which it may leave
     */
    long earliestSend(long nowNanos, int bytes);

    /**
     * Bytes allowed in flight, {@link Long#MAX_VALUE} for no window. The rate schemes here have
     * none; the seam carries it for window-based schemes (HPCC-like, IRN's BDP cap).
     *
     * @return the window in bytes
     */
    long windowBytes();

    /**
     * Apply every timer expiry due at or before {@code nowNanos} without reporting an event. The
     * other methods do this first themselves; call it only before reading a scheme's state at a
     * given instant (plots, tests).
     *
     * @param nowNanos the current time
     */
    void advanceTo(long nowNanos);

    /**
     * The current sending rate as of the latest call, in bits per second;
     * {@link Double#POSITIVE_INFINITY} for no limit. A double because the schemes' averaging
     * steps produce fractional rates and a plot should see them as they are.
     *
     * @return the rate in bit/s
     */
    double rateBitsPerSecond();
}
