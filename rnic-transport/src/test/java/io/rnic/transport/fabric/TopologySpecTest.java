package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one topology grammar: star:N, dumbbell:N, leafspine:L,S,H, fattree:k=K, file:PATH. */
class TopologySpecTest {
    private static final long HOST = 100_000_000_000L;
    private static final long FABRIC = 400_000_000_000L;

    private static Topology parse(String spec) {
        return TopologySpec.parse(spec, HOST, FABRIC, 1_000);
    }

    @Test
    void eachFormBuildsItsTopologyWithHostAndFabricRates() {
        Topology star = parse("star:8");
        assertEquals(8, star.hostCount());
        assertEquals(1, star.switchCount());
        assertEquals(HOST, star.links().get(0).bitsPerSecond());

        Topology dumbbell = parse("dumbbell:2");
        assertEquals(4, dumbbell.hostCount());
        assertEquals(FABRIC, dumbbell.links().get(4).bitsPerSecond(), "the bottleneck runs at the fabric rate");

        Topology ls = parse("leafspine:4,2,8");
        assertEquals(32, ls.hostCount());
        assertEquals(6, ls.switchCount());
        assertEquals(FABRIC, ls.links().get(32).bitsPerSecond());

        Topology ft = parse("fattree:k=4");
        assertEquals(16, ft.hostCount());
        assertEquals(20, ft.switchCount());
        assertEquals(HOST, ft.links().get(0).bitsPerSecond());
        assertEquals(FABRIC, ft.links().get(16).bitsPerSecond());

        assertEquals(16, parse("FatTree:K=4").hostCount(), "the kind is case-insensitive");
        assertEquals(8, parse(" star: 8 ").hostCount());
    }

    @Test
    void aFileFormReadsAnHpccTopologyWithItsOwnRates(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("t.txt");
        Files.writeString(file, "3 1 2\n2\n0 2 25Gbps 2us 0\n1 2 25Gbps 2us 0\n");
        Topology t = parse("file:" + file);
        assertEquals(2, t.hostCount());
        assertEquals(25_000_000_000L, t.links().get(0).bitsPerSecond());
        assertEquals(2_000, t.links().get(0).delayNanos());
        assertThrows(UncheckedIOException.class, () -> parse("file:" + dir.resolve("missing.txt")));
    }

    @Test
    void aWrongSpecListsTheAcceptedForms() {
        String forms = "star:N, dumbbell:N, leafspine:L,S,H, fattree:k=K or file:PATH";
        assertEquals("unknown topology 'ring:4': use " + forms,
                assertThrows(IllegalArgumentException.class, () -> parse("ring:4")).getMessage());
        assertEquals("topology 'star' has no ':': use " + forms,
                assertThrows(IllegalArgumentException.class, () -> parse("star")).getMessage());
        for (String bad : new String[] {"star:x", "leafspine:4,2", "fattree:4", "fattree:k=x", "file:", ""}) {
            String m = assertThrows(IllegalArgumentException.class, () -> parse(bad), bad).getMessage();
            assertTrue(m.contains(forms), bad + ": " + m);
        }
        // The numbers parse but make no topology: the builder says why.
        assertEquals("a fat tree's k must be even and between 2 and 128, got 3",
                assertThrows(IllegalArgumentException.class, () -> parse("fattree:k=3")).getMessage());
    }
}
