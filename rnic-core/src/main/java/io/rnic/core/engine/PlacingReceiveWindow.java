package io.rnic.core.engine;

import io.rnic.core.memory.AccessResult;
import io.rnic.core.memory.RemoteKey;
import io.rnic.core.packet.Header;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.Operation;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.packet.SrethFlyweight;
import io.rnic.core.psn.Psn;
import io.rnic.verbs.AccessFlags;

/**
 * Seed 002's responder for the extended protocol: a SEND or WRITE packet ahead of the expected
 * PSN carries in its SRETH where its data goes (a WRITE's address, R_Key, length and packet
 * offset; a SEND's receive WQE number and packet offset), so its data is placed in memory on
 * arrival, after the same key and bounds checks an in-order packet passes, and only its headers
 * are kept to complete the message in order when the hole before it fills. What cannot be placed
 * yet (a READ or atomic request, a SEND whose receive WQE is not posted or is in a shared queue, a
 * packet that fails a check: the in-order pass gives the error) is kept whole, as
 * {@link ReorderReceiveWindow} keeps everything.
 *
 * <p>A hole declared lost is reported with a selective NAK whose SRETH lists every PSN missing
 * before the newest one held; the report is repeated while the hole stays open, because the
 * requester resends exactly what is listed and a resent packet may be lost again.
 */
final class PlacingReceiveWindow extends ReorderReceiveWindow {
    private final RemoteKey remoteKey = new RemoteKey();
    private final boolean[] missing = new boolean[SrethFlyweight.BITMAP_PSNS];
    private final java.util.function.IntPredicate isMissing = i -> missing[i];
    /** The last PSN the latest report covered, or -1 when the hole has not been reported. */
    private int reportedThrough = -1;

    PlacingReceiveWindow(QpContext qp, Responder responder) {
        super(qp, responder);
    }

    @Override
    protected boolean keep(RocePacket p, int psn) {
        Opcode op = p.opcode();
        Operation o = op.operation();
        // Only SEND and WRITE data has a place to go before its turn; an ATOMIC WRITE's 8 bytes
        // are an atomic and wait for it.
        if (op.has(Header.SRETH) && (o == Operation.RDMA_WRITE || o == Operation.SEND)) {
            int len = p.payloadLength();
            int headers = p.payloadOffset() - p.offset();
            boolean placed = o == Operation.RDMA_WRITE ? placeWrite(p, len) : placeSend(p, len);
            if (placed) {
                return hold(p, headers, len);
            }
        }
        return super.keep(p, psn);
    }

    /** A WRITE packet's data at its SRETH's address plus its offset, if its checks pass. */
    private boolean placeWrite(RocePacket p, int len) {
        if ((qp.accessFlags & AccessFlags.REMOTE_WRITE) == 0 || !fullPacketUnlessLast(p, len)) {
            return false;
        }
        SrethFlyweight x = p.sreth();
        long offset = Integer.toUnsignedLong(x.psnOffset()) * qp.mtu;
        long dma = Integer.toUnsignedLong(x.length());
        if (dma > (1L << 31) || offset + len > dma || len == 0) {
            return false;
        }
        AccessResult r = qp.hca.keys().resolveRemote(x.key(), responder.target().pd(), qp.qpn, x.address() + offset, len,
                AccessFlags.REMOTE_WRITE, 1, remoteKey);
        if (r != AccessResult.OK || !remoteKey.mr.isValid()) {
            return false;
        }
        remoteKey.mr.write(remoteKey.va, p.buffer(), p.payloadOffset(), len);
        return true;
    }

    /** A SEND packet's data in the receive WQE its SRETH numbers, at its offset, if that WQE is known. */
    private boolean placeSend(RocePacket p, int len) {
        if (!fullPacketUnlessLast(p, len) || len == 0) {
            return false;
        }
        SrethFlyweight x = p.sreth();
        RecvWqe w = responder.rwqeNumbered(Integer.toUnsignedLong(x.key()));
        if (w == null || w.sgl.resolve(qp.hca.keys(), responder.target().queue().pd(), AccessFlags.LOCAL_WRITE)
                != AccessResult.OK) {
            return false;
        }
        long offset = Integer.toUnsignedLong(x.psnOffset()) * qp.mtu;
        if (offset + len > w.sgl.totalLength()) {
            return false;
        }
        return w.sgl.scatter(offset, p.buffer(), p.payloadOffset(), len);
    }

    /** A FIRST or MIDDLE packet carries exactly one MTU (reference §5.2's length rule). */
    private boolean fullPacketUnlessLast(RocePacket p, int len) {
        return p.opcode().position().endsMessage() ? len <= qp.mtu : len == qp.mtu;
    }

    @Override
    protected void holeOpened(int e) {
        reportedThrough = -1;
    }

    /**
     * A selective NAK at the expected PSN listing every PSN before the newest held that is neither
     * held nor a response PSN of a held READ request (the requester sends nothing there). A report
     * caused by more arrivals lists only PSNs after the last report's (the earlier ones were asked
     * for a moment ago and may be on their way); a report after a hole timeout lists them all.
     */
    @Override
    protected boolean reportHole(boolean all) {
        int expected = responder.expectedPsn();
        int newest = marks.highestMarked();
        int span = newest < 0 ? 1 : Math.min(Psn.forward(expected, newest), SrethFlyweight.BITMAP_PSNS);
        int from = all || reportedThrough < 0 || Psn.isBefore(reportedThrough, expected) ? 0
                : Psn.forward(expected, reportedThrough) + 1;
        boolean[] missing = this.missing;
        java.util.Arrays.fill(missing, false);
        boolean any = false;
        for (int i = 0; i < span; i++) {
            int psn = Psn.add(expected, i);
            if (i > 0 && isHeld(psn)) {
                i += psnsTaken(psn) - 1;
            } else if (i >= from) {
                missing[i] = true;
                any = true;
            }
        }
        if (!any) {
            return false;
        }
        reportedThrough = Psn.add(expected, span - 1);
        responder.nakSelective(isMissing);
        return true;
    }

    @Override
    protected boolean reportsAgainOnArrivals() {
        return true;
    }

    @Override
    protected boolean acknowledgesWhatItHeld() {
        return true;
    }

    @Override
    public boolean earlierReadInterrupts() {
        return false;
    }
}
