package io.rnic.core.hca;

import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WorkCompletion;
import java.util.SplittableRandom;

/**
 * What the device does where the specification leaves the choice open. {@link #DEFINED} is the
 * device's ordinary, predictable choice; {@link #strict} makes the choice at random, as a
 * different NIC, a different driver or a later firmware may, so that an application that
 * depends on one of them fails in its tests instead of on someone else's hardware (the idea of
 * pib's behaviour switches). Each choice is one method, and the engine calls it where the choice
 * is made, whatever the mode.
 */
public abstract class UndefinedBehaviour {
    /** rnic's ordinary choices: SRQ WQEs in posting order, QP numbers in sequence, zeros in error completions. */
    public static final UndefinedBehaviour DEFINED = new UndefinedBehaviour() {
        @Override
        public int srqPick(int posted) {
            return 0;
        }

        @Override
        public int qpn(java.util.function.IntPredicate free) {
            return -1;
        }

        @Override
        public void errorCompletion(WorkCompletion wc) {
        }
    };

    /**
     * Random choices from {@code seed} (the simulated network's seed, so a failure replays), as
     * {@link #strict} describes them.
     */
    public static UndefinedBehaviour strict(long seed) {
        return new Strict(new SplittableRandom(seed));
    }

    /**
     * Which of the {@code posted} WQEs of a shared receive queue the next message takes, counted
     * from the oldest: IBA 10.8.3.2 does not promise posting order.
     */
    public abstract int srqPick(int posted);

    /**
     * A QP number drawn from the numbers {@code free} accepts, or -1 to take the next in sequence.
     * Called under the HCA's lock.
     */
    public abstract int qpn(java.util.function.IntPredicate free);

    /**
     * Fills what an error completion leaves undefined: of a completion whose status is not
     * success, only wr_id, status, qp_num and vendor_err are valid ({@code ibv_poll_cq(3)}); the
     * opcode, byte_len, imm_data, src_qp and wc_flags are not.
     */
    public abstract void errorCompletion(WorkCompletion wc);

    /** The strict choices. Protocol-thread draws and QP numbers (any thread) use separate generators. */
    private static final class Strict extends UndefinedBehaviour {
        /** QP numbers are drawn from the first 2^16 above the special ones: a table that size is cheap. */
        static final int QPN_SPAN = 1 << 16;
        private static final WcOpcode[] OPCODES = WcOpcode.values();
        private final SplittableRandom protocol;
        private final SplittableRandom qpns;

        Strict(SplittableRandom random) {
            this.protocol = random.split();
            this.qpns = random.split();
        }

        @Override
        public int srqPick(int posted) {
            return posted <= 1 ? 0 : protocol.nextInt(posted);
        }

        @Override
        public int qpn(java.util.function.IntPredicate free) {
            for (int tries = 0; tries < 64; tries++) {
                int q = Hca.FIRST_QPN + qpns.nextInt(QPN_SPAN);
                if (free.test(q)) {
                    return q;
                }
            }
            for (int q = Hca.FIRST_QPN; q < Hca.FIRST_QPN + QPN_SPAN; q++) { // nearly full: the first free one
                if (free.test(q)) {
                    return q;
                }
            }
            throw new IllegalStateException("all " + QPN_SPAN + " QP numbers of strict mode are in use");
        }

        @Override
        public void errorCompletion(WorkCompletion wc) {
            int vendorErr = wc.vendorErr(); // valid: fill() would clear it
            wc.fill(wc.wrId(), wc.status(), OPCODES[protocol.nextInt(OPCODES.length)], wc.qpNum())
                    .details(protocol.nextInt(), protocol.nextInt() & 0xFFFFFF, protocol.nextInt(16),
                            protocol.nextInt(), protocol.nextInt())
                    .vendorErr(vendorErr);
        }
    }
}
