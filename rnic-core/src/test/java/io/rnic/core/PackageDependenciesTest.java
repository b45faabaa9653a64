package io.rnic.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The core's packages depend on each other in one direction only (docs/design.md): the leaves
 * (packet, psn, time), then memory and qp, then hca (the device's receive path, which knows no
 * transport), then transport; the wire seam after hca. Of the public API package
 * ({@code io.rnic.verbs}, in this module too) the engine uses the value types only, never the
 * objects applications hold (devices, QPs, ...), which sit on top of it. Read from the sources,
 * so a new cycle fails here first.
 */
class PackageDependenciesTest {
    private static final Path SOURCES = Path.of("src/main/java/io/rnic/core");
    private static final Pattern REFERENCE = Pattern.compile("io\\.rnic\\.(core\\.([a-z]+)|transport|verbs|bench)\\.(\\w+)");
    /** The API's value types: what the engine reads from and writes to applications. */
    private static final Set<String> API_VALUES = Set.of("SendWorkRequest", "RecvWorkRequest", "WorkRequest", "Sges", "WorkCompletion",
            "WrOpcode", "WcStatus", "WcOpcode", "QpCaps", "AddressHandle", "AccessFlags", "QpType", "QpState", "PathMtu",
            "QpAttributes", "QpAttrMask", "AddressVector", "AsyncEvent", "Counter", "Counters", "IcrcPolicy",
            "RnicException", "WireException", "LossRecovery", "RdQpErrorRecovery");

    static Map<String, Set<String>> dependencies() {
        Map<String, Set<String>> deps = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path f : files.filter(x -> x.toString().endsWith(".java")).toList()) {
                String pkg = SOURCES.relativize(f.getParent()).toString().replace('/', '.');
                Set<String> out = deps.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher m = REFERENCE.matcher(Files.readString(f));
                while (m.find()) {
                    String target = m.group(2) != null ? m.group(2) : "io.rnic." + m.group(1);
                    if (target.equals("io.rnic.verbs") && API_VALUES.contains(m.group(3))) {
                        continue; // the API's value types are the engine's vocabulary, not a layer above it
                    }
                    if (!target.equals(pkg)) {
                        out.add(target + (target.startsWith("io.rnic.") ? "." + m.group(3) : ""));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return deps;
    }

    @Test
    void theCorePackagesFormNoCycleAndTheHcaKnowsNoTransport() {
        Map<String, Set<String>> deps = dependencies();
        assertTrue(deps.keySet().containsAll(Set.of("hca", "memory", "packet", "psn", "qp", "time", "transport")), deps.toString());
        assertTrue(!deps.get("hca").contains("transport"), "hca -> transport: " + deps.get("hca"));
        assertTrue(!deps.get("memory").contains("transport"), "memory -> transport: " + deps.get("memory"));
        List<String> cycles = new ArrayList<>();
        for (String start : deps.keySet()) {
            if (reaches(deps, start, start, new TreeSet<>())) {
                cycles.add(start);
            }
        }
        assertEquals(List.of(), cycles, "packages on a dependency cycle: " + deps);
    }

    @Test
    void theCoreDependsOnNoOtherModule() {
        dependencies().forEach((pkg, out) -> out.forEach(t ->
                assertTrue(!t.startsWith("io.rnic."), pkg + " refers to " + t)));
    }

    private static boolean reaches(Map<String, Set<String>> deps, String from, String target, Set<String> seen) {
        for (String next : deps.getOrDefault(from, Set.of())) {
            if (next.equals(target)) {
                return true;
            }
            if (seen.add(next) && reaches(deps, next, target, seen)) {
                return true;
            }
        }
        return false;
    }
}
