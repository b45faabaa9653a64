package io.rnic.bench.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** One in-process run of the {@code rnic} tool: exit status and what it printed. */
record CliRun(int status, String out, String err) {

    static CliRun rnic(String... args) {
        return with(new Rnic(Rnic.builtIn()), args);
    }

    static CliRun with(Rnic rnic, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            status = rnic.run(args, o, e);
        }
        return new CliRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    List<String> outLines() {
        return out.lines().toList();
    }

    String lastLine() {
        List<String> l = outLines();
        return l.isEmpty() ? "" : l.get(l.size() - 1);
    }

    static String pcap(String name) {
        try {
            return Path.of(CliRun.class.getResource("/pcap/" + name).toURI()).toString();
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("missing test resource pcap/" + name, e);
        }
    }

    @Override
    public String toString() {
        return "exit " + status + "\n--- out\n" + out + "--- err\n" + err;
    }
}
