package io.rnic.core.engine;

/**
 * The fence ({@code IBV_SEND_FENCE}): a fenced WQE starts only once the READs and atomics posted
 * before it have completed.
 */
final class FenceGate implements SendGate {
    private final ReadAtomicGate readAtomic;

    FenceGate(ReadAtomicGate readAtomic) {
        this.readAtomic = readAtomic;
    }

    @Override
    public boolean admits(SendWqe w) {
        return (w.flags & SendWqe.FENCE) == 0 || w.psnAssigned || readAtomic.outstanding() == 0;
    }
}
