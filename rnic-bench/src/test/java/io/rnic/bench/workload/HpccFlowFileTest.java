package io.rnic.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HPCC's flow file (simulation/mix/flow.txt, written by traffic_gen.py): read, written, read back. */
class HpccFlowFileTest {
    private static final IntPredicate HOSTS_0_TO_15 = n -> n >= 0 && n < 16;

    @Test
    void hpccsSampleFlowFileIsReadUpToItsCountAndItsExplanationIgnored() {
        // mix/flow.txt: a count of 2, then the two 200 MB flows at t = 2 s, then an explanation block.
        String text = "2\n2 1 3 100 200000000 2\n3 1 3 100 200000000 2\n\n\nFirst line: flow #\n"
                + "src dst priority dport size(B) start_time(s)\n";
        HpccFlowFile.Trace t = HpccFlowFile.parse("flow.txt", text, HOSTS_0_TO_15);
        assertEquals(List.of(new FlowSpec(0, 2, 1, 3, 200_000_000, 0, false), new FlowSpec(1, 3, 1, 3, 200_000_000, 0, false)),
                t.flows());
        assertEquals("", t.note());
    }

    @Test
    void startsAreRelativeToTheFirstFlowsToTheNanosecondAndDport200IsIncast() {
        String text = "3\n0 5 3 100 1000 2.000000100\n5 0 3 200 64 2.000001\n7 1 0 100 9 2.5\n";
        List<FlowSpec> f = HpccFlowFile.parse("t", text, HOSTS_0_TO_15).flows();
        assertEquals(new FlowSpec(0, 0, 5, 3, 1000, 0, false), f.get(0));
        assertEquals(new FlowSpec(1, 5, 0, 3, 64, 900, true), f.get(1));
        assertEquals(new FlowSpec(2, 7, 1, 0, 9, 499_999_900, false), f.get(2), "pg is the PFC priority");
    }

    @Test
    void writtenFlowsReadBackTheSameRelativeToTheFirst(@TempDir Path dir) {
        int[] hosts = new int[16];
        for (int i = 0; i < 16; i++) {
            hosts[i] = i;
        }
        long[] rates = new long[16];
        java.util.Arrays.fill(rates, 100_000_000_000L);
        List<FlowSpec> flows = Workloads.merge(
                Workloads.poisson(hosts, rates, 0.5, 2_000_000, FlowSizeCdf.webSearch(), 21),
                Workloads.incast(hosts, new Workloads.IncastOverlay(4, 4096, 500_000), 2_000_000, 21));
        Path file = dir.resolve("flow.txt");
        HpccFlowFile.write(file, flows, HpccFlowFile.HPCC_OFFSET_NANOS);
        String text = HpccFlowFile.format(flows, HpccFlowFile.HPCC_OFFSET_NANOS);
        String first = text.lines().skip(1).findFirst().orElseThrow();
        FlowSpec f0 = flows.get(0);
        assertEquals(f0.src() + " " + f0.dst() + " 3 100 " + f0.bytes() + " 2." + String.format("%09d", f0.startNanos()), first,
                "traffic_gen.py's line: src dst 3 100 size seconds with 9 decimals, from 2 s");
        HpccFlowFile.Trace back = HpccFlowFile.read(file, HOSTS_0_TO_15);
        List<FlowSpec> expected = new ArrayList<>();
        for (FlowSpec f : flows) {
            expected.add(new FlowSpec(f.id(), f.src(), f.dst(), f.priority(), f.bytes(), f.startNanos() - f0.startNanos(),
                    f.incast()));
        }
        assertEquals(expected, back.flows());
        assertEquals(flows.size(), back.declared());
    }

    @Test
    void aFirstLineThatClaimsMoreFlowsThanFollowIsReadAsFarAsItGoesAndSaidSo() {
        // traffic_gen.py overwrites its estimate in place: "120" over "1000" leaves "1200".
        HpccFlowFile.Trace t = HpccFlowFile.parse("f", "12\n1 2 3 100 10 2\n2 1 3 100 10 2.1\n\n", HOSTS_0_TO_15);
        assertEquals(2, t.flows().size());
        assertEquals(12, t.declared());
        assertTrue(t.note().contains("line 1 declares 12 flows but the file has 2"), t.note());
    }

    @Test
    void aMalformedFileIsRefusedNamingTheLineAndWhatIsWrong() {
        assertEquals("t line 1: 'flows' is not the number of flows", refused("flows\n"));
        assertEquals("t line 1: '' is not the number of flows", refused(""));
        assertEquals("t line 1: the number of flows, -1, is negative", refused("-1\n"));
        assertEquals("t line 2: '1 2 3 100 10' is not 'src dst pg dport size start_time' (six fields)",
                refused("1\n1 2 3 100 10\n"));
        assertEquals("t line 3: node 16 is not a host of the topology", refused("2\n1 2 3 100 10 2\n16 2 3 100 10 2\n"));
        assertEquals("t line 2: source and destination are both 4", refused("1\n4 4 3 100 10 2\n"));
        assertEquals("t line 2: pg 9 is not a priority 0..7", refused("1\n4 5 9 100 10 2\n"));
        assertEquals("t line 2: size 0 is outside 1..2147483647 (an RC message's length)", refused("1\n4 5 3 100 0 2\n"));
        assertEquals("t line 2: size '1e3' is not a whole number", refused("1\n4 5 3 100 1e3 2\n"));
        assertEquals("t line 2: start_time 'soon' is not a number of seconds", refused("1\n4 5 3 100 10 soon\n"));
        assertEquals("t line 3: start_time 1.5 is before the first flow's 2; flows must be in ascending start order",
                refused("2\n4 5 3 100 10 2\n5 4 3 100 10 1.5\n"));
        assertEquals("t line 4: start_time 2.1 is before the previous flow's; flows must be in ascending start order",
                refused("3\n4 5 3 100 10 2\n5 4 3 100 10 2.2\n5 4 3 100 10 2.1\n"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HpccFlowFile.format(
                List.of(new FlowSpec(0, 1, 2, 3, 10, 5, false), new FlowSpec(1, 1, 2, 3, 10, 4, false)), 0)).getMessage()
                .contains("a flow file is in start order"));
    }

    private static String refused(String text) {
        return assertThrows(IllegalArgumentException.class, () -> HpccFlowFile.parse("t", text, HOSTS_0_TO_15)).getMessage();
    }
}
