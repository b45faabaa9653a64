package io.rnic.core.qp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.verbs.AddressVector;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The small value types of the QP package: states, types, MTUs, masks, address vectors. */
class QpValuesTest {

    @Test
    void qpStateValuesAreIbvQpState() {
        int[] want = {0, 1, 2, 3, 4, 5, 6};
        QpState[] states = {QpState.RESET, QpState.INIT, QpState.RTR, QpState.RTS, QpState.SQD, QpState.SQE,
            QpState.ERR};
        for (int i = 0; i < states.length; i++) {
            assertEquals(want[i], states[i].value());
            assertEquals(states[i], QpState.ofValue(want[i]));
        }
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> QpState.ofValue(7));
        assertTrue(x.getMessage().contains("7"), x.getMessage());
    }

    @Test
    void qpTypeValuesAreIbvQpType() {
        assertEquals(2, QpType.RC.value());
        assertEquals(3, QpType.UC.value());
        assertEquals(4, QpType.UD.value());
        assertEquals(9, QpType.XRC_SEND.value());
        assertEquals(10, QpType.XRC_RECV.value());
        assertEquals(QpType.XRC_RECV, QpType.ofValue(10));
        assertThrows(IllegalArgumentException.class, () -> QpType.ofValue(8));
    }

    @Test
    void pathMtuValuesAndSizes() {
        int bytes = 256;
        for (int v = 1; v <= 5; v++, bytes *= 2) {
            PathMtu m = PathMtu.ofValue(v);
            assertEquals(v, m.value());
            assertEquals(bytes, m.bytes());
            assertEquals(m, PathMtu.ofBytes(bytes));
        }
        assertEquals(PathMtu.MTU_4096, PathMtu.ofBytes(4096));
        assertThrows(IllegalArgumentException.class, () -> PathMtu.ofValue(0));
        assertThrows(IllegalArgumentException.class, () -> PathMtu.ofValue(6));
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> PathMtu.ofBytes(1500));
        assertTrue(x.getMessage().contains("1500"), x.getMessage());
    }

    @Test
    void attrMaskBitsAreIbvQpAttrMask() {
        assertEquals(1, QpAttrMask.STATE);
        assertEquals(1 << 7, QpAttrMask.AV);
        assertEquals(1 << 13, QpAttrMask.MAX_QP_RD_ATOMIC);
        assertEquals(1 << 17, QpAttrMask.MAX_DEST_RD_ATOMIC);
        assertEquals(1 << 19, QpAttrMask.CAP);
        assertEquals(1 << 20, QpAttrMask.DEST_QPN);
        assertEquals(22, Integer.bitCount(QpAttrMask.ALL));
    }

    @Test
    void attrMaskNamesAndParseAreInverse() {
        assertEquals("AV|PATH_MTU", QpAttrMask.names(QpAttrMask.AV | QpAttrMask.PATH_MTU));
        assertEquals("", QpAttrMask.names(0));
        assertEquals("STATE|0x400000", QpAttrMask.names(QpAttrMask.STATE | 1 << 22));
        for (int i = 0; i < QpAttrMask.COUNT; i++) {
            assertEquals(1 << i, QpAttrMask.parse(QpAttrMask.name(1 << i)));
        }
        assertEquals(QpAttrMask.ALL, QpAttrMask.parse(QpAttrMask.names(QpAttrMask.ALL)));
        assertEquals(QpAttrMask.AV | QpAttrMask.QKEY, QpAttrMask.parse("AV, QKEY"));
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> QpAttrMask.parse("AV|MTU"));
        assertTrue(x.getMessage().contains("MTU"), x.getMessage());
        assertThrows(IllegalArgumentException.class, () -> QpAttrMask.name(QpAttrMask.AV | QpAttrMask.QKEY));
    }

    @Test
    void everySetterRecordsExactlyItsMaskBit() throws Exception {
        AddressVector av = AddressVector.of(InetAddress.getByName("10.0.0.1"));
        Object[][] cases = {
            {QpAttrMask.STATE, new QpAttributes().state(QpState.INIT)},
            {QpAttrMask.CUR_STATE, new QpAttributes().curState(QpState.RTS)},
            {QpAttrMask.EN_SQD_ASYNC_NOTIFY, new QpAttributes().enSqdAsyncNotify(true)},
            {QpAttrMask.ACCESS_FLAGS, new QpAttributes().accessFlags(0)},
            {QpAttrMask.PKEY_INDEX, new QpAttributes().pkeyIndex(0)},
            {QpAttrMask.PORT, new QpAttributes().port(1)},
            {QpAttrMask.QKEY, new QpAttributes().qkey(1)},
            {QpAttrMask.AV, new QpAttributes().av(av)},
            {QpAttrMask.PATH_MTU, new QpAttributes().pathMtu(PathMtu.MTU_256)},
            {QpAttrMask.TIMEOUT, new QpAttributes().timeout(1)},
            {QpAttrMask.RETRY_CNT, new QpAttributes().retryCnt(1)},
            {QpAttrMask.RNR_RETRY, new QpAttributes().rnrRetry(1)},
            {QpAttrMask.RQ_PSN, new QpAttributes().rqPsn(1)},
            {QpAttrMask.MAX_QP_RD_ATOMIC, new QpAttributes().maxRdAtomic(1)},
            {QpAttrMask.MIN_RNR_TIMER, new QpAttributes().minRnrTimer(1)},
            {QpAttrMask.SQ_PSN, new QpAttributes().sqPsn(1)},
            {QpAttrMask.MAX_DEST_RD_ATOMIC, new QpAttributes().maxDestRdAtomic(1)},
            {QpAttrMask.PATH_MIG_STATE, new QpAttributes().pathMigState(QpAttributes.MIG_ARMED)},
            {QpAttrMask.DEST_QPN, new QpAttributes().destQpn(1)},
        };
        for (Object[] c : cases) {
            assertEquals(QpAttrMask.names((Integer) c[0]), QpAttrMask.names(((QpAttributes) c[1]).mask()));
        }
    }

    @Test
    void maskAccumulatesAndClearMaskKeepsValues() {
        QpAttributes a = new QpAttributes().state(QpState.RTS).sqPsn(42).timeout(14);
        assertEquals(QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT, a.mask());
        a.clearMask();
        assertEquals(0, a.mask());
        assertEquals(42, a.sqPsn());
        assertEquals(QpState.RTS, a.state());
    }

    @Test
    void copyFromWithMaskCopiesOnlyTheNamedAttributes() {
        QpAttributes src = new QpAttributes().sqPsn(7).rqPsn(9).timeout(3);
        QpAttributes dst = new QpAttributes().rqPsn(1);
        dst.copyFrom(src, QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT);
        assertEquals(7, dst.sqPsn());
        assertEquals(3, dst.timeout());
        assertEquals(1, dst.rqPsn());
        assertEquals(QpAttrMask.RQ_PSN | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT, dst.mask());
        QpAttributes copy = new QpAttributes().qkey(5).copyFrom(src);
        assertEquals(src.mask(), copy.mask());
        assertEquals(9, copy.rqPsn());
    }

    @Test
    void ipv4GidIsTheIpv4MappedAddress() throws Exception {
        // Reference §11.1: 10.0.0.1 is 00000000000000000000ffff0a000001.
        byte[] gid = HexFormat.of().parseHex("00000000000000000000ffff0a000001");
        InetAddress ip = AddressVector.fromGid(gid);
        assertTrue(ip instanceof Inet4Address, ip.toString());
        assertEquals(InetAddress.getByName("10.0.0.1"), ip);
        assertArrayEquals(gid, AddressVector.toGid(InetAddress.getByName("10.0.0.1")));
    }

    @Test
    void ipv6GidIsTheAddressItself() throws Exception {
        InetAddress v6 = InetAddress.getByName("fe80::1:2:3:4");
        byte[] gid = AddressVector.toGid(v6);
        assertArrayEquals(v6.getAddress(), gid);
        assertTrue(AddressVector.fromGid(gid) instanceof Inet6Address);
        assertEquals(v6, AddressVector.fromGid(gid));
    }

    @Test
    void zeroOrShortGidIsRejected() {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> AddressVector.fromGid(new byte[16]));
        assertTrue(x.getMessage().contains("all zero"), x.getMessage());
        assertThrows(IllegalArgumentException.class, () -> AddressVector.fromGid(new byte[4]));
        assertThrows(NullPointerException.class, () -> AddressVector.fromGid(null));
    }

    @Test
    void addressVectorDefaultsAndWithersLeaveTheOriginalUnchanged() throws Exception {
        AddressVector av = AddressVector.of(InetAddress.getByName("10.0.0.1"));
        assertEquals(4791, av.port());
        assertEquals(0, av.sgidIndex());
        assertEquals(AddressVector.DEFAULT_HOP_LIMIT, av.hopLimit());
        assertEquals(0, av.trafficClass());
        assertEquals(0, av.flowLabel());
        AddressVector b = av.withPort(5000).withSgidIndex(1).withHopLimit(1).withTrafficClass(0x60)
                .withFlowLabel(0xFFFFF).withAddress(InetAddress.getByName("10.0.0.2"));
        assertNotSame(av, b);
        assertEquals(4791, av.port());
        assertEquals(5000, b.port());
        assertEquals(1, b.sgidIndex());
        assertEquals(1, b.hopLimit());
        assertEquals(0x60, b.trafficClass());
        assertEquals(0xFFFFF, b.flowLabel());
        assertEquals(InetAddress.getByName("10.0.0.2"), b.address());
        assertArrayEquals(AddressVector.toGid(b.address()), b.dgid());
        assertEquals(av, AddressVector.of(InetAddress.getByName("10.0.0.1")));
        assertEquals(av.hashCode(), AddressVector.of(InetAddress.getByName("10.0.0.1")).hashCode());
    }

    @Test
    void addressVectorFieldRangesAreChecked() throws Exception {
        AddressVector av = AddressVector.of(InetAddress.getByName("10.0.0.1"));
        assertThrows(IllegalArgumentException.class, () -> av.withPort(0));
        assertThrows(IllegalArgumentException.class, () -> av.withPort(65536));
        assertThrows(IllegalArgumentException.class, () -> av.withHopLimit(256));
        assertThrows(IllegalArgumentException.class, () -> av.withTrafficClass(-1));
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> av.withFlowLabel(1 << 20));
        assertTrue(x.getMessage().contains("flow_label"), x.getMessage());
        assertThrows(NullPointerException.class, () -> AddressVector.of(null));
    }
}
