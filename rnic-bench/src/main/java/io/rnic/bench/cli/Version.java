package io.rnic.bench.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.Properties;

/**
 * What this build of rnic is: the project version and the git commit it was built from, as
 * Maven wrote them into {@code version.properties} beside this class when it built the jar.
 * Nothing here is typed by hand, so the version cannot drift from the POM's.
 *
 * @param version  the project version, for example {@code 0.1.0-SNAPSHOT}
 * @param revision the abbreviated commit, if the build ran in a git checkout
 */
record Version(String version, Optional<String> revision) {
    private static final String RESOURCE = "version.properties";

    /** The version of the classes running now. */
    static Version current() {
        Properties p = new Properties();
        try (InputStream in = Version.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
        // The jar manifest's Implementation-Version is the fallback for a class path without
        // the resource; an unfiltered "${...}" counts as unknown.
        String version = known(p.getProperty("version"))
                .or(() -> Optional.ofNullable(Version.class.getPackage().getImplementationVersion()))
                .orElse("unknown");
        return new Version(version, known(p.getProperty("revision")));
    }

    private static Optional<String> known(String value) {
        return value == null || value.isBlank() || value.contains("${") ? Optional.empty() : Optional.of(value.strip());
    }

    /** The line {@code rnic --version} prints: {@code rnic VERSION (git REV), Java RUNTIME}. */
    String line() {
        return "rnic " + version + revision.map(r -> " (git " + r + ")").orElse("") + ", Java " + Runtime.version();
    }
}
