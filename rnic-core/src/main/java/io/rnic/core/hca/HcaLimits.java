package io.rnic.core.hca;

import io.rnic.core.qp.QpTransitions;
import io.rnic.verbs.PathMtu;

/**
 * Device and port limits ({@code ibv_device_attr} / {@code ibv_port_attr}). The defaults are
 * rxe's (reference §10.2), except the active MTU, which is the port's maximum because there is
 * no netdev MTU to derive it from.
 *
 * @param maxQp          queue pairs per device
 * @param maxQpWr        work requests per queue
 * @param maxSge         scatter/gather entries per work request
 * @param maxCqe         entries per completion queue
 * @param maxMr          memory regions per device
 * @param maxMrSize      bytes per memory region
 * @param maxQpRdAtom    max_qp_rd_atom: outstanding READs/atomics per QP, either side
 * @param maxMtu         the port's largest MTU
 * @param activeMtu      the port's active MTU
 * @param maxMessageSize bytes per message
 * @param sendWindow     request PSNs a QP may have unacknowledged (rxe: 128)
 * @param recovery       reorder buffer bounds and hole detection of out-of-order loss recovery
 * @param maxCq          completion queues per device
 * @param maxPd          protection domains per device
 * @param maxSrq         shared receive queues (XRC ones included) per device
 * @param maxAh          address handles per device
 */
public record HcaLimits(int maxQp, int maxQpWr, int maxSge, int maxCqe, int maxMr, long maxMrSize, int maxQpRdAtom,
                        PathMtu maxMtu, PathMtu activeMtu, long maxMessageSize, int sendWindow,
                        RecoveryTuning recovery, int maxCq, int maxPd, int maxSrq, int maxAh) {
    /** Completion queues, protection domains, SRQs and address handles a device has by default. */
    public static final int DEFAULT_MAX_OBJECTS = 1 << 16;

    public HcaLimits {
        if (maxQp < 1 || maxQpWr < 1 || maxSge < 1 || maxCqe < 1 || maxMr < 1 || maxMrSize < 1 || maxQpRdAtom < 1
                || maxMessageSize < 1 || sendWindow < 1 || sendWindow > (1 << 23) || maxCq < 1 || maxPd < 1
                || maxSrq < 1 || maxAh < 1) {
            throw new IllegalArgumentException("device limits must be positive (send window at most 2^23): " + this);
        }
        java.util.Objects.requireNonNull(recovery, "recovery tuning");
        if (activeMtu.bytes() > maxMtu.bytes()) {
            throw new IllegalArgumentException("active MTU " + activeMtu + " exceeds the port maximum " + maxMtu);
        }
    }

    /**
     * rxe's limits: 128 outstanding reads/atomics, MTU 4096, messages up to 2^31 bytes, 128 PSNs
     * in flight; 2^16 QPs, CQs, PDs, SRQs and address handles.
     */
    public static HcaLimits defaults() {
        return new HcaLimits(1 << 16, 1 << 15, 32, 1 << 16, 1 << 18, Long.MAX_VALUE, 128,
                PathMtu.MTU_4096, PathMtu.MTU_4096, 1L << 31, 128, RecoveryTuning.defaults(),
                DEFAULT_MAX_OBJECTS, DEFAULT_MAX_OBJECTS, DEFAULT_MAX_OBJECTS, DEFAULT_MAX_OBJECTS);
    }

    /** The same limits with another send window. */
    public HcaLimits withSendWindow(int psns) {
        return new HcaLimits(maxQp, maxQpWr, maxSge, maxCqe, maxMr, maxMrSize, maxQpRdAtom, maxMtu, activeMtu,
                maxMessageSize, psns, recovery, maxCq, maxPd, maxSrq, maxAh);
    }

    /** The same limits with another active MTU. */
    public HcaLimits withActiveMtu(PathMtu mtu) {
        return new HcaLimits(maxQp, maxQpWr, maxSge, maxCqe, maxMr, maxMrSize, maxQpRdAtom, maxMtu, mtu,
                maxMessageSize, sendWindow, recovery, maxCq, maxPd, maxSrq, maxAh);
    }

    /** The same limits with other loss-recovery tuning. */
    public HcaLimits withRecovery(RecoveryTuning r) {
        return new HcaLimits(maxQp, maxQpWr, maxSge, maxCqe, maxMr, maxMrSize, maxQpRdAtom, maxMtu, activeMtu,
                maxMessageSize, sendWindow, r, maxCq, maxPd, maxSrq, maxAh);
    }

    /**
     * The same limits with other numbers of completion queues, protection domains, shared receive
     * queues and address handles per device.
     */
    public HcaLimits withMaxObjects(int cqs, int pds, int srqs, int ahs) {
        return new HcaLimits(maxQp, maxQpWr, maxSge, maxCqe, maxMr, maxMrSize, maxQpRdAtom, maxMtu, activeMtu,
                maxMessageSize, sendWindow, recovery, cqs, pds, srqs, ahs);
    }

    /** What QP attribute validation needs. */
    public QpTransitions.Limits qpLimits() {
        return new QpTransitions.Limits(maxMtu, maxQpRdAtom, 1, 1);
    }
}
