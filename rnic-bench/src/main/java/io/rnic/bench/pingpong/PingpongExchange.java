package io.rnic.bench.pingpong;

import io.rnic.verbs.Gid;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The libibverbs examples' out-of-band exchange over TCP (reference §11.2, §11.3): each side's
 * {@code LID:QPN:PSN:GID} records of 52 bytes (51 characters and a NUL, each in one write), the
 * server bringing its QPs up before it answers, and the client's final {@code "done\0"}.
 */
final class PingpongExchange {
    static final int RECORD = 52;
    private static final byte[] DONE = "done\0".getBytes(StandardCharsets.US_ASCII);

    /** One side's address record. */
    record Dest(int lid, int qpn, int psn, Gid gid) {
        String text() {
            return String.format("%04x:%06x:%06x:%s", lid, qpn, psn, gid == null ? "0".repeat(32) : gid.toHex());
        }

        static Dest parse(String rec) {
            String[] f = rec.split(":");
            if (f.length != 4 || f[3].length() != 32) {
                throw new IllegalArgumentException("malformed LID:QPN:PSN:GID record \"" + rec + "\"");
            }
            boolean zero = f[3].chars().allMatch(c -> c == '0');
            return new Dest(Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16),
                    zero ? null : Gid.parseHex(f[3]));
        }
    }

    /** What the server does between reading the client's records and writing its own. */
    @FunctionalInterface
    interface Connect {
        void connect(List<Dest> remote) throws IOException;
    }

    private PingpongExchange() {
    }

    /** The server's side: read {@code n} records, connect, write {@code local}, read "done". */
    static List<Dest> serve(ServerSocket ss, List<Dest> local, int n, Connect connect) throws IOException {
        try (Socket s = ss.accept()) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            List<Dest> remote = read(in, n);
            connect.connect(remote);
            write(s.getOutputStream(), local, n);
            byte[] done = new byte[DONE.length];
            in.readFully(done);
            return remote;
        }
    }

    /** The client's side: write {@code local}, read {@code n} records, write "done". */
    static List<Dest> dial(String server, int port, List<Dest> local, int n) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(server, port), 30_000);
            OutputStream o = s.getOutputStream();
            write(o, local, n);
            List<Dest> remote = read(new DataInputStream(s.getInputStream()), n);
            o.write(DONE);
            o.flush();
            return remote;
        }
    }

    /** Writes {@code n} records: the local ones, then all-zero ones (as ibv_srq_pingpong's unused). */
    private static void write(OutputStream o, List<Dest> local, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            Dest d = i < local.size() ? local.get(i) : new Dest(0, 0, 0, null);
            byte[] r = new byte[RECORD];
            byte[] t = d.text().getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(t, 0, r, 0, Math.min(t.length, RECORD - 1));
            o.write(r);
        }
        o.flush();
    }

    private static List<Dest> read(DataInputStream in, int n) throws IOException {
        List<Dest> out = new ArrayList<>(n);
        byte[] b = new byte[RECORD];
        for (int i = 0; i < n; i++) {
            in.readFully(b);
            int end = 0;
            while (end < RECORD && b[end] != 0) {
                end++;
            }
            out.add(Dest.parse(new String(b, 0, end, StandardCharsets.US_ASCII)));
        }
        return out;
    }
}
