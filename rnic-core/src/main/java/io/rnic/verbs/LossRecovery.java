package io.rnic.verbs;

/**
 * How an RC QP recovers from lost and reordered packets: rnic's out-of-order reception and selective retransmission, after IRN (Mittal et al., "Revisiting Network Support for RDMA", SIGCOMM 2018). Set with
 * {@link QpAttributes#lossRecovery} on the INIT to RTR transition; the default is the
 * specification's go-back-N.
 *
 * <ul>
 *   <li>{@link #GO_BACK_N}: the InfiniBand rules as written. The responder NAKs the first
 *       out-of-sequence request and drops the rest; the requester resends everything from the
 *       PSN that was lost.</li>
 *   <li>{@link #REORDER}: the reorder-buffer scheme, "more memory, no wire change". The responder
 *       keeps requests that arrive ahead of the expected PSN in a bounded reorder buffer and
 *       processes them in PSN order once the hole fills; a hole that stays open too long or
 *       behind too many later arrivals is NAKed at once. The requester places READ responses
 *       that arrive ahead of the expected one and re-reads only the missing pieces. The packets
 *       are standard RoCEv2: either side may talk to any peer.</li>
 *   <li>{@link #SELECTIVE}: the selective-retransmission scheme, the extended protocol. Every request and
 *       READ response carries an extension header (SRETH) that lets the receiver place it on
 *       arrival; the responder answers a loss with a NAK that lists what is missing, and the
 *       requester resends exactly that. Its packets use manufacturer-specific opcodes
 *       (0xC0–0xDF), so both sides must set it.</li>
 * </ul>
 */
public enum LossRecovery {
    /** The specification's go-back-N (the default). */
    GO_BACK_N,
    /** A reorder buffer at the responder and selective re-reads at the requester; standard packets. */
    REORDER,
    /** The extended-header selective-retransmission protocol; both sides must use it. */
    SELECTIVE
}
