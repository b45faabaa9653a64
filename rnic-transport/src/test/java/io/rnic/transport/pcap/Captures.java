package io.rnic.transport.pcap;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Test captures: the copied resource files, and builders for pcap / pcapng bytes. */
final class Captures {
    private Captures() {
    }

    static Path resource(String name) {
        URL url = Captures.class.getResource("/" + name);
        if (url == null) {
            throw new IllegalStateException("missing test resource " + name);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Path golden(String name) {
        return resource("golden/" + name);
    }

    static Path wireCheck(String name) {
        return resource("wirecheck/" + name);
    }

    static List<Path> goldenFiles() {
        try (Stream<Path> s = Files.list(resource("golden"))) {
            return s.filter(p -> p.toString().endsWith(".pcap")).sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<PcapFrame> frames(Path p) {
        try {
            return PcapReader.readAll(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first frame of a capture that carries a RoCEv2 datagram. */
    static PcapFrame firstRoceFrame(Path p) {
        return frames(p).stream()
                .filter(f -> FrameParser.parse(f).filter(d -> d.destinationPort() == 4791).isPresent())
                .findFirst().orElseThrow();
    }

    static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replaceAll("\\s+", ""));
    }

    /** A classic pcap file, microsecond magic, in the given byte order. */
    static byte[] pcap(ByteOrder order, int magic, int linkType, List<byte[]> frames) {
        ByteBuffer b = ByteBuffer.allocate(24 + frames.stream().mapToInt(f -> 16 + f.length).sum()).order(order);
        b.putInt(magic).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(262144).putInt(linkType);
        int i = 0;
        for (byte[] f : frames) {
            b.putInt(1_700_000_000 + i).putInt(250 * i).putInt(f.length).putInt(f.length).put(f);
            i++;
        }
        return b.array();
    }

    static byte[] pcap(int linkType, List<byte[]> frames) {
        return pcap(ByteOrder.LITTLE_ENDIAN, 0xA1B2C3D4, linkType, frames);
    }

    static PcapReader reader(byte[] bytes) throws IOException {
        return new PcapReader(new java.io.ByteArrayInputStream(bytes));
    }

    static List<PcapFrame> read(byte[] bytes) {
        try (PcapReader r = reader(bytes)) {
            return r.readAll();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Ethernet frame's IP packet (no VLAN tag). */
    static byte[] stripEthernet(byte[] frame) {
        return java.util.Arrays.copyOfRange(frame, 14, frame.length);
    }

    /** Inserts 802.1Q tags (TPID 0x8100 or 0x88a8) after the MAC addresses. */
    static byte[] tagVlan(byte[] ethernet, int... tpids) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(ethernet, 0, 12);
        int vid = 100;
        for (int tpid : tpids) {
            out.write(tpid >>> 8);
            out.write(tpid);
            out.write(vid >>> 8);
            out.write(vid++);
        }
        out.write(ethernet, 12, ethernet.length - 12);
        return out.toByteArray();
    }

    /** Builds pcapng files block by block. */
    static final class PcapNg {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private ByteOrder order = ByteOrder.LITTLE_ENDIAN;

        PcapNg shb(ByteOrder o) {
            this.order = o;
            ByteBuffer body = ByteBuffer.allocate(16).order(o);
            body.putInt(0x1A2B3C4D).putShort((short) 1).putShort((short) 0).putLong(-1L);
            return block(0x0A0D0D0A, body.array());
        }

        PcapNg idb(int linkType, Integer tsresol) {
            ByteBuffer body = ByteBuffer.allocate(tsresol == null ? 8 : 20).order(order);
            body.putShort((short) linkType).putShort((short) 0).putInt(0);
            if (tsresol != null) {
                body.putShort((short) 9).putShort((short) 1).put((byte) (int) tsresol).put(new byte[3]);
                body.putShort((short) 0).putShort((short) 0);
            }
            return block(1, body.array());
        }

        PcapNg epb(int ifid, long units, byte[] data) {
            int padded = (data.length + 3) & ~3;
            ByteBuffer body = ByteBuffer.allocate(20 + padded).order(order);
            body.putInt(ifid).putInt((int) (units >>> 32)).putInt((int) units).putInt(data.length).putInt(data.length).put(data);
            return block(6, body.array());
        }

        PcapNg spb(byte[] data) {
            int padded = (data.length + 3) & ~3;
            ByteBuffer body = ByteBuffer.allocate(4 + padded).order(order);
            body.putInt(data.length).put(data);
            return block(3, body.array());
        }

        PcapNg block(int type, byte[] body) {
            ByteBuffer b = ByteBuffer.allocate(12 + body.length).order(order);
            b.putInt(type).putInt(12 + body.length).put(body).putInt(12 + body.length);
            out.writeBytes(b.array());
            return this;
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
