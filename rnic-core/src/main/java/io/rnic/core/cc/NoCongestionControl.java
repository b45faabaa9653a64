package io.rnic.core.cc;

/**
 * {@link CongestionControl#NONE}: what every QP gets by default, so the requester behaves exactly
 * as it did before the seam existed. Holds no state, so one instance serves every QP, and does
 * not even check that time moves forward.
 */
enum NoCongestionControl implements CongestionControl {
    INSTANCE;

    @Override
    public void onSend(long nowNanos, int bytes) {
    }

    @Override
    public void onAck(long nowNanos, long rttNanos) {
    }

    @Override
    public void onCnp(long nowNanos) {
    }

    @Override
    public long earliestSend(long nowNanos, int bytes) {
        return nowNanos;
    }

    @Override
    public long windowBytes() {
        return Long.MAX_VALUE;
    }

    @Override
    public void advanceTo(long nowNanos) {
    }

    @Override
    public double rateBitsPerSecond() {
        return Double.POSITIVE_INFINITY;
    }

    @Override
    public String toString() {
        return "none";
    }
}
