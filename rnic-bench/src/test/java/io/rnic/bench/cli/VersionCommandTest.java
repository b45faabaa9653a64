package io.rnic.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class VersionCommandTest {
    /** The POM's version, which surefire passes in (rnic-bench/pom.xml): the one source of truth. */
    private static String projectVersion() {
        String v = System.getProperty("rnic.expected.version");
        assertNotNull(v, "surefire sets rnic.expected.version to ${project.version}");
        return v;
    }

    @Test
    void versionAndDashDashVersionPrintTheProjectVersionCommitAndJava() {
        for (String[] args : new String[][] {{"--version"}, {"version"}}) {
            CliRun r = CliRun.rnic(args);
            assertEquals(0, r.status(), r.toString());
            assertEquals("", r.err());
            assertEquals(1, r.outLines().size(), r.out());
            String line = r.lastLine();
            // "rnic 0.1.0-SNAPSHOT (git 0123456789ab), Java 17.0.15+6": the commit only when built in git.
            String expected = "rnic " + java.util.regex.Pattern.quote(projectVersion())
                    + "( \\(git [0-9a-f]{7,40}\\))?, Java " + java.util.regex.Pattern.quote(Runtime.version().toString());
            assertTrue(line.matches(expected), line);
        }
    }

    @Test
    void theVersionComesFromTheBuildNotFromSourceCode() {
        Version v = Version.current();
        assertEquals(projectVersion(), v.version());
        v.revision().ifPresent(rev -> assertTrue(rev.matches("[0-9a-f]{7,40}"), rev));
    }

    @Test
    void versionTakesNoArgumentsAndHasHelp() {
        CliRun extra = CliRun.rnic("version", "now");
        assertEquals(2, extra.status());
        assertTrue(extra.err().startsWith("rnic version: unexpected argument 'now'"), extra.err());
        CliRun help = CliRun.rnic("version", "--help");
        assertEquals(0, help.status());
        assertTrue(help.out().startsWith("Usage: rnic version "), help.out());
        // --version is rnic's version option, so --help next to it is rnic's help.
        CliRun both = CliRun.rnic("--version", "--help");
        assertEquals(0, both.status());
        assertTrue(both.out().startsWith("Usage: rnic "), both.out());
    }

    @Test
    void theOverviewListsTheVersionCommand() {
        assertTrue(CliRun.rnic("--help").out().matches("(?s).*\n  version +print the version.*"));
    }
}
