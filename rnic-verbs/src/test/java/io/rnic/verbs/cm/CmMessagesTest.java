package io.rnic.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.transport.pcap.FrameParser;
import io.rnic.transport.pcap.PcapFrame;
import io.rnic.transport.pcap.PcapReader;
import io.rnic.transport.pcap.UdpDatagram;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The CM MAD layouts (IBA 12.6, 12.11) against the Linux CM's own bytes: the REQ, REP, RTU, DREQ
 * and DREP of a genuine {@code rping} connection between two Soft-RoCE guests
 * ({@code golden/rping_rdmacm.pcap}) decode to what Wireshark shows and encode back byte for byte.
 */
class CmMessagesTest {
    /** The MADs of the golden rping capture, in order: REQ, REP, RTU, DREQ, DREP. */
    static List<ByteBuffer> goldenMads() throws Exception {
        Path pcap = Path.of(CmMessagesTest.class.getResource("/golden/rping_rdmacm.pcap").toURI());
        List<ByteBuffer> mads = new ArrayList<>();
        for (PcapFrame f : PcapReader.readAll(pcap)) {
            UdpDatagram d = FrameParser.parse(f).orElseThrow();
            int bth = d.payloadOffset();
            if ((f.data()[bth] & 0xFF) == 0x64 && (f.data()[bth + 7] & 0xFF) == 1) { // UD SEND ONLY to QP1
                mads.add(ByteBuffer.wrap(f.data(), bth + 12 + 8, Mad.SIZE).slice());
            }
        }
        return mads;
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[Mad.SIZE];
        b.get(0, out);
        return out;
    }

    @Test
    void theLinuxCmsReqDecodesAsWiresharkShowsAndEncodesBackByteForByte() throws Exception {
        ByteBuffer mad = goldenMads().get(0);
        assertTrue(Mad.isCm(mad));
        assertEquals(Mad.REQ, Mad.attributeId(mad));
        CmReq req = CmReq.decode(mad);
        assertEquals(0xcca41c2a, req.localCommId());
        assertEquals(PortSpace.TCP.serviceId(7174), req.serviceId(), "rping's port 7174 in the TCP port space");
        assertEquals(0x20, req.localQpn());
        assertEquals(1, req.responderResources());
        assertEquals(1, req.initiatorDepth());
        assertEquals(20, req.remoteCmResponseTimeout());
        assertEquals(0, req.transportType());
        assertEquals(0xdd83e6, req.startingPsn());
        assertEquals(20, req.localCmResponseTimeout());
        assertEquals(7, req.retryCount());
        assertEquals(0xFFFF, req.pkey());
        assertEquals(3, req.pathMtu());
        assertEquals(7, req.rnrRetryCount());
        assertEquals(15, req.maxCmRetries());
        assertEquals(0x40, req.hopLimit());
        assertEquals(19, req.localAckTimeout());
        assertArrayEquals(io.rnic.verbs.Gid.of(InetAddress.getByName("169.254.77.12")).bytes(), req.localGid());
        assertArrayEquals(io.rnic.verbs.Gid.of(InetAddress.getByName("169.254.77.11")).bytes(), req.remoteGid());
        assertTrue(CmaHeader.valid(req.privateData()));
        assertEquals(new InetSocketAddress("169.254.77.12", 0xe06d), CmaHeader.source(req.privateData()));
        assertEquals(InetAddress.getByName("169.254.77.11"), CmaHeader.destination(req.privateData()));

        ByteBuffer again = ByteBuffer.allocate(Mad.SIZE);
        req.encode(again, Mad.tid(mad));
        assertArrayEquals(bytes(mad), bytes(again));
    }

    @Test
    void theLinuxCmsRepRtuDreqAndDrepEncodeBackByteForByte() throws Exception {
        List<ByteBuffer> mads = goldenMads();
        assertEquals(5, mads.size());
        CmRep rep = CmRep.decode(mads.get(1));
        assertEquals(0x870d6ca6, rep.localCommId());
        assertEquals(0xcca41c2a, rep.remoteCommId());
        assertEquals(0xf682, rep.startingPsn());
        assertEquals(15, rep.targetAckDelay());
        assertEquals(7, rep.rnrRetryCount());
        assertEquals(0x505400fffe77000bL, rep.localCaGuid());
        ByteBuffer again = ByteBuffer.allocate(Mad.SIZE);
        rep.encode(again, Mad.tid(mads.get(1)));
        assertArrayEquals(bytes(mads.get(1)), bytes(again));
        for (int i = 2; i < 5; i++) {
            CmReply m = CmReply.decode(mads.get(i));
            m.encode(again, Mad.tid(mads.get(i)));
            assertArrayEquals(bytes(mads.get(i)), bytes(again), Mad.attributeName(m.attributeId()));
        }
        assertEquals(0x20, CmReply.decode(mads.get(3)).value(), "the DREQ names the peer's QPN");
        assertEquals(Mad.tid(mads.get(0)), Mad.tid(mads.get(3)), "the Linux CM keeps one TID per connection");
    }

    @Test
    void rejAndMraAndSidrFieldsRoundTrip() {
        ByteBuffer mad = ByteBuffer.allocate(Mad.SIZE);
        CmReply.rej(5, 6, 0, CmId.REJ_CONSUMER_DEFINED, new byte[] {1, 2, 3}).encode(mad, 9);
        CmReply rej = CmReply.decode(mad);
        assertEquals(Mad.REJ, rej.attributeId());
        assertEquals(28, rej.value2());
        assertEquals(0, rej.value());
        assertEquals(3, rej.privateData()[2]);
        CmReply.mra(5, 6, 1, 17).encode(mad, 9);
        CmReply mra = CmReply.decode(mad);
        assertEquals(1, mra.value());
        assertEquals(17, mra.value2());
        SidrMessage.reply(7, PortSpace.UDP.serviceId(7174), 0, 0x1234, CmId.UDP_QKEY, new byte[] {9}).encode(mad, 3);
        SidrMessage rep = SidrMessage.decode(mad);
        assertEquals(0x1234, rep.qpn());
        assertEquals(CmId.UDP_QKEY, rep.qkey());
        assertEquals(PortSpace.UDP.serviceId(7174), rep.serviceId());
        assertEquals(9, rep.privateData()[0]);
        SidrMessage.request(7, 0xFFFF, 42L, new byte[] {8}).encode(mad, 3);
        SidrMessage req = SidrMessage.decode(mad);
        assertEquals(0xFFFF, req.pkey());
        assertEquals(42L, req.serviceId());
    }

    @Test
    void privateDataBeyondWhatTheMessageCarriesIsRefused() {
        var a = new InetSocketAddress("10.0.0.1", 1);
        var b = new InetSocketAddress("10.0.0.2", 2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CmaHeader.wrap(a, b, new byte[57], CmReq.PRIVATE_DATA));
        assertTrue(e.getMessage().contains("56"), e.getMessage());
        assertEquals(92, CmaHeader.wrap(a, b, new byte[56], CmReq.PRIVATE_DATA).length);
        assertFalse(CmaHeader.valid(new byte[36]), "version 0 but IP version 0");
    }
}
