package io.rnic.transport.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PcapReaderTest {

    @Test
    void readsEveryRecordOfAGoldenCapture() throws IOException {
        // tcpdump reported "62 packets captured" for this case (read_bw_2050.log).
        try (PcapReader r = PcapReader.open(Captures.golden("read_bw_2050.pcap"))) {
            assertEquals(PcapReader.Format.PCAP, r.format());
            assertEquals(LinkType.ETHERNET, r.linkType());
            List<PcapFrame> frames = r.readAll();
            assertEquals(62, frames.size());
            assertNull(r.problem());
            for (int i = 0; i < frames.size(); i++) {
                assertEquals(i + 1, frames.get(i).number());
                assertEquals(frames.get(i).originalLength(), frames.get(i).capturedLength());
            }
            assertTrue(frames.get(0).timestamp().isAfter(Instant.parse("2020-01-01T00:00:00Z")));
        }
    }

    @Test
    void bigEndianAndNanosecondFilesGiveTheSameFrames() {
        List<byte[]> data = List.of(new byte[] {1, 2, 3}, new byte[0], new byte[] {9});
        List<PcapFrame> le = Captures.read(Captures.pcap(ByteOrder.LITTLE_ENDIAN, 0xA1B2C3D4, 1, data));
        List<PcapFrame> be = Captures.read(Captures.pcap(ByteOrder.BIG_ENDIAN, 0xA1B2C3D4, 1, data));
        List<PcapFrame> ns = Captures.read(Captures.pcap(ByteOrder.BIG_ENDIAN, 0xA1B23C4D, 1, data));
        assertEquals(3, le.size());
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(data.get(i), le.get(i).data());
            assertArrayEquals(data.get(i), be.get(i).data());
            assertArrayEquals(data.get(i), ns.get(i).data());
            assertEquals(le.get(i).timestampNanos(), be.get(i).timestampNanos());
        }
        // The fraction field is 250*i: microseconds in one file, nanoseconds in the other.
        assertEquals(1_700_000_002L * 1_000_000_000L + 500_000L, le.get(2).timestampNanos());
        assertEquals(1_700_000_002L * 1_000_000_000L + 500L, ns.get(2).timestampNanos());
    }

    @Test
    void linkTypeIgnoresTheFcsBits() throws IOException {
        byte[] file = Captures.pcap(LinkType.LINUX_SLL2 | 0x1000_0000, List.of(new byte[4]));
        try (PcapReader r = Captures.reader(file)) {
            assertEquals(LinkType.LINUX_SLL2, r.next().linkType());
        }
    }

    @Test
    void pcapngHonoursPerInterfaceLinkTypeAndResolutionAndSkipsUnknownBlocks() throws IOException {
        byte[] eth = Captures.firstRoceFrame(Captures.golden("rc_pingpong_64.pcap")).data();
        byte[] raw = Captures.stripEthernet(eth);
        byte[] file = new Captures.PcapNg()
                .shb(ByteOrder.LITTLE_ENDIAN)
                .idb(LinkType.ETHERNET, null)            // microseconds by default
                .idb(LinkType.IPV4, 9)                   // nanoseconds
                .block(4, new byte[] {0, 0, 0, 0})         // name resolution: skipped
                .epb(0, 1_700_000_000_123_456L, eth)
                .block(0x0BAD, new byte[8])               // custom block type: skipped
                .epb(1, 1_700_000_000_123_456_789L, raw)
                .spb(eth)                                 // interface 0
                .shb(ByteOrder.BIG_ENDIAN)                // a new section resets the interfaces
                .idb(LinkType.LINUX_SLL2, 0x80 | 10)      // 2^-10 s
                .epb(0, 1024 * 5 + 512, new byte[] {8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
                .bytes();
        try (PcapReader r = Captures.reader(file)) {
            assertEquals(PcapReader.Format.PCAPNG, r.format());
            List<PcapFrame> frames = r.readAll();
            assertNull(r.problem());
            assertEquals(4, frames.size());
            assertEquals(List.of(1, 2, 3, 4), frames.stream().map(PcapFrame::number).toList());
            assertEquals(List.of(LinkType.ETHERNET, LinkType.IPV4, LinkType.ETHERNET, LinkType.LINUX_SLL2),
                    frames.stream().map(PcapFrame::linkType).toList());
            assertArrayEquals(eth, frames.get(0).data());
            assertArrayEquals(raw, frames.get(1).data());
            assertArrayEquals(eth, frames.get(2).data());
            assertEquals(21, frames.get(3).data().length);
            assertEquals(1_700_000_000_123_456_000L, frames.get(0).timestampNanos());
            assertEquals(1_700_000_000_123_456_789L, frames.get(1).timestampNanos());
            assertEquals(0, frames.get(2).timestampNanos());
            assertEquals(5_500_000_000L, frames.get(3).timestampNanos());
        }
        // The RoCEv2 packets in it decode on both link types.
        RoceCaptureDecoder d = new RoceCaptureDecoder();
        for (PcapFrame f : Captures.read(file)) {
            d.decode(f);
        }
        assertEquals(3, d.packets());
        assertTrue(d.allClean(), d.summary());
    }

    @Test
    void truncatedLastRecordEndsTheStream() throws IOException {
        byte[] whole = Files.readAllBytes(Captures.golden("rc_pingpong_64.pcap"));
        int frames = Captures.read(whole).size();
        try (PcapReader r = Captures.reader(Arrays.copyOf(whole, whole.length - 10))) {
            assertEquals(frames - 1, r.readAll().size());
            assertTrue(r.damaged());
            assertTrue(r.problem().contains("truncated"), r.problem());
            assertNull(r.next());
        }
    }

    @Test
    void everyCutOfAClassicFileReadsWithoutThrowing() throws IOException {
        byte[] whole = Files.readAllBytes(Captures.golden("host_ud_peer.pcap"));
        int previous = 0;
        for (int cut = 4; cut <= whole.length; cut++) {
            try (PcapReader r = Captures.reader(Arrays.copyOf(whole, cut))) {
                int n = r.readAll().size();
                assertTrue(n >= previous, "frames only accumulate as the file grows");
                previous = n;
            }
        }
        assertEquals(Captures.read(whole).size(), previous);
    }

    @Test
    void everyCutOfAPcapngFileReadsWithoutThrowing() throws IOException {
        byte[] frame = new byte[60];
        Captures.PcapNg ng = new Captures.PcapNg();
        // Block boundaries: a cut there is a clean end, anywhere else a truncated block.
        List<Integer> boundaries = List.of(
                ng.shb(ByteOrder.BIG_ENDIAN).bytes().length, ng.idb(1, null).bytes().length,
                ng.epb(0, 1, frame).bytes().length, ng.spb(frame).bytes().length, ng.epb(0, 2, frame).bytes().length);
        byte[] whole = ng.bytes();
        for (int cut = 4; cut <= whole.length; cut++) {
            try (PcapReader r = Captures.reader(Arrays.copyOf(whole, cut))) {
                int n = r.readAll().size();
                assertEquals(boundaries.contains(cut), r.problem() == null, "cut at " + cut + ": " + r.problem());
                int expected = 0;
                for (int i = 2; i < boundaries.size(); i++) {
                    if (boundaries.get(i) <= cut) {
                        expected++;
                    }
                }
                assertEquals(expected, n, "cut at " + cut);
            }
        }
    }

    @Test
    void somethingThatIsNotACaptureIsAClearError() {
        IOException empty = assertThrows(PcapFormatException.class, () -> Captures.reader(new byte[0]));
        assertTrue(empty.getMessage().contains("empty"));
        IOException text = assertThrows(PcapFormatException.class,
                () -> Captures.reader("hello, world\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        assertTrue(text.getMessage().contains("not a pcap"), text.getMessage());
        assertThrows(PcapFormatException.class, () -> Captures.reader(new byte[] {(byte) 0xD4, (byte) 0xC3}));
        // pcapng block type but no byte-order magic
        assertThrows(PcapFormatException.class,
                () -> Captures.reader(new byte[] {0x0A, 0x0D, 0x0D, 0x0A, 28, 0, 0, 0, 1, 2, 3, 4}));
        Random rnd = new Random(42);
        for (int i = 0; i < 200; i++) {
            byte[] garbage = new byte[1 + rnd.nextInt(200)];
            rnd.nextBytes(garbage);
            garbage[0] = 'x';   // no pcap or pcapng magic starts with it
            assertThrows(PcapFormatException.class, () -> Captures.reader(garbage));
        }
    }

    @Test
    void garbageAfterAValidHeaderEndsTheStreamWithoutThrowing() throws IOException {
        Random rnd = new Random(7);
        byte[] header = Arrays.copyOf(Captures.pcap(1, List.of()), 24);
        byte[] ngHeader = new Captures.PcapNg().shb(ByteOrder.LITTLE_ENDIAN).idb(1, 6).bytes();
        for (int i = 0; i < 500; i++) {
            byte[] tail = new byte[rnd.nextInt(300)];
            rnd.nextBytes(tail);
            for (byte[] head : List.of(header, ngHeader)) {
                byte[] file = ByteBuffer.allocate(head.length + tail.length).put(head).put(tail).array();
                try (PcapReader r = Captures.reader(file)) {
                    r.readAll();
                    assertNull(r.next());
                }
            }
        }
    }

    @Test
    void hugeRecordLengthIsCorruptionNotAnAllocation() throws IOException {
        ByteBuffer b = ByteBuffer.allocate(24 + 16 + 8).order(ByteOrder.LITTLE_ENDIAN);
        b.put(Arrays.copyOf(Captures.pcap(1, List.of()), 24));
        b.putInt(0).putInt(0).putInt(0x7FFF_FFF0).putInt(0x7FFF_FFF0).putLong(0);
        try (PcapReader r = Captures.reader(b.array())) {
            assertNull(r.next());
            assertTrue(r.problem().contains("corrupt"), r.problem());
        }
        byte[] ng = new Captures.PcapNg().shb(ByteOrder.LITTLE_ENDIAN).idb(1, null).bytes();
        byte[] bad = ByteBuffer.allocate(ng.length + 12).order(ByteOrder.LITTLE_ENDIAN)
                .put(ng).putInt(6).putInt(0x7FFF_FFF0).putInt(0).array();
        try (PcapReader r = Captures.reader(bad)) {
            assertNull(r.next());
            assertTrue(r.problem().contains("corrupt"), r.problem());
        }
    }

    @Test
    void pcapngBlockWithWrongTrailerStopsReading() throws IOException {
        byte[] frame = new byte[20];
        byte[] good = new Captures.PcapNg().shb(ByteOrder.LITTLE_ENDIAN).idb(1, null).epb(0, 0, frame).epb(0, 0, frame).bytes();
        byte[] bad = good.clone();
        bad[bad.length - 1] ^= 0x40;   // trailer of the last EPB
        try (PcapReader r = Captures.reader(bad)) {
            assertEquals(1, r.readAll().size());
            assertTrue(r.problem().contains("trailer"), r.problem());
        }
    }

    @Test
    void binaryTimestampResolution() {
        assertEquals(1_000_000_000L, PcapReader.toNanos(1L << 20, 0x80 | 20));
        assertEquals(500_000_000L, PcapReader.toNanos(1, 0x81));
        assertEquals(1_000L, PcapReader.toNanos(1, 6));
        assertEquals(1L, PcapReader.toNanos(1000, 12));
        assertFalse(PcapReader.toNanos(-1L, 0x80 | 64) < 0);
    }
}
