package io.rnic.bench.modules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A modular application that {@code requires} rnic's modules compiles and runs on the module path
 * with no flags: {@code javac --module-path} and {@code java --module-path ... -m app/app.Main},
 * nothing added. The application moves a 4 KiB RDMA WRITE over the simulated network and over
 * UDP on loopback (Netty's NIO transport: the native epoll module is not resolved unless added),
 * and checks the bytes and the modules its classes came from.
 *
 * <p>The module path is built from this test's own class path: rnic's three library modules
 * (their class directories or jars, both carry {@code module-info.class}) and the Netty and SLF4J
 * jars they require. No logging backend is put on it, as a library user might not.
 */
class ModulePathTest {
    private static final Pattern MODULES = Pattern.compile(
            ".*(rnic-(core|transport|verbs)[/\\\\]target[/\\\\]classes|rnic-(core|transport|verbs)-[^/\\\\]*\\.jar"
                    + "|netty-[a-z-]+-[0-9][^/\\\\]*\\.jar|slf4j-api-[^/\\\\]*\\.jar)$");

    private static final String MODULE_INFO = """
            module app {
                requires io.rnic.verbs;
                requires io.rnic.transport;
                requires io.rnic.verbs.cm;
            }
            """;

    private static final String MAIN = """
            package app;

            import io.rnic.verbs.RcOptions;
            import io.rnic.verbs.RdmaDevice;
            import io.rnic.verbs.WorkCompletion;
            import io.rnic.verbs.testing.RcPair;

            public final class Main {
                public static void main(String[] args) {
                    try (RcPair sim = RcPair.simulated(7)) {
                        System.out.println("sim " + write(sim));
                    }
                    try (RcPair udp = RcPair.udp(args[0], args[1], RcOptions.defaults())) {
                        System.out.println("udp " + write(udp));
                    }
                    System.out.println("modules " + RdmaDevice.class.getModule().getName() + " "
                            + io.rnic.transport.udp.UdpWire.class.getModule().getName() + " "
                            + RcPair.class.getModule().getName() + " "
                            + io.netty.buffer.ByteBuf.class.getModule().getName());
                }

                private static String write(RcPair p) {
                    for (int i = 0; i < 4096; i++) {
                        p.bufferA().put(i, (byte) (i * 31 + 7));
                    }
                    p.qpA().postSend(p.write(1, 0, 4096));
                    WorkCompletion wc = p.awaitA(1).get(0);
                    for (int i = 0; i < 4096; i++) {
                        if (p.bufferB().get(i) != p.bufferA().get(i)) {
                            return "MISMATCH at " + i;
                        }
                    }
                    return wc.status() + " 4096 bytes";
                }
            }
            """;

    @Test
    void aModularApplicationRunsWithoutFlags(@TempDir Path dir) throws IOException, InterruptedException {
        List<String> path = modulePath();
        assertTrue(path.stream().anyMatch(p -> p.contains("rnic-core")), "rnic-core on the class path: " + path);
        String modulePath = String.join(File.pathSeparator, path);

        Path src = dir.resolve("src/app");
        Files.createDirectories(src.resolve("app"));
        Files.writeString(src.resolve("module-info.java"), MODULE_INFO);
        Files.writeString(src.resolve("app/Main.java"), MAIN);
        Path out = dir.resolve("out/app");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int compiled = javac.run(null, System.out, System.err, "--module-path", modulePath, "-d", out.toString(),
                src.resolve("module-info.java").toString(), src.resolve("app/Main.java").toString());
        assertEquals(0, compiled, "javac --module-path ... of an application that requires rnic's modules");

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "--module-path", out + File.pathSeparator + modulePath, "-m",
                "app/app.Main", "127.0.171.1", "127.0.172.1").redirectErrorStream(true).start();
        boolean ended = p.waitFor(120, TimeUnit.SECONDS);
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!ended) {
            p.destroyForcibly();
        }
        assertTrue(ended, "the application ended: " + output);
        assertEquals(0, p.exitValue(), output);
        assertTrue(output.contains("sim SUCCESS 4096 bytes"), output);
        assertTrue(output.contains("udp SUCCESS 4096 bytes"), output);
        assertTrue(output.contains("modules io.rnic.verbs io.rnic.transport io.rnic.verbs.cm io.netty.buffer"), output);
    }

    /** rnic's library modules and what they require, from this test's class path. */
    private static List<String> modulePath() {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> path = new ArrayList<>();
        for (String entry : cp.split(Pattern.quote(File.pathSeparator))) {
            if (MODULES.matcher(entry).matches() && !entry.contains("native-epoll")) {
                path.add(entry);
            }
        }
        return path;
    }
}
