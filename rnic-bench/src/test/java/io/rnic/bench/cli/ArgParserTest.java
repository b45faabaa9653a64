package io.rnic.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ArgParserTest {
    private static ArgParser parser() {
        return new ArgParser("rnic test", "[options] FILE...")
                .description("Tests the parser.")
                .option("-p", "--port", "N", "a port")
                .option(null, "--name", "TEXT", "a name")
                .flag("-q", "--quiet", "be quiet")
                .flag("-v", null, "short-only flag")
                .positionals("FILE", 1, 3)
                .epilog("Exit status: 0.");
    }

    private static String message(String... args) {
        return assertThrows(UsageException.class, () -> parser().parse(args)).getMessage();
    }

    @Test
    void flagsOptionsAndPositionalsInAnyOrder() throws UsageException {
        ParsedArgs a = parser().parse(new String[] {"a.pcap", "-q", "--port", "4792", "b.pcap", "--name=x=y", "-p", "0x12b9"});
        assertTrue(a.flag("--quiet"));
        assertTrue(a.flag("-q"), "either name finds the option");
        assertFalse(a.flag("-v"));
        assertEquals(List.of("4792", "0x12b9"), a.values("--port"));
        assertEquals("0x12b9", a.value("-p"), "the last occurrence wins");
        assertEquals(OptionalInt.of(4793), a.intValue("--port", 0, 65535));
        assertEquals("x=y", a.value("--name"));
        assertEquals(List.of("a.pcap", "b.pcap"), a.positionals());
        assertFalse(a.helpRequested());
    }

    @Test
    void doubleDashEndsOptions() throws UsageException {
        ParsedArgs a = parser().parse(new String[] {"--", "-q", "--help"});
        assertFalse(a.flag("--quiet"));
        assertFalse(a.helpRequested());
        assertEquals(List.of("-q", "--help"), a.positionals());
        assertEquals(List.of("-"), parser().parse(new String[] {"-"}).positionals(), "'-' is an argument");
    }

    @Test
    void absentOptions() throws UsageException {
        ParsedArgs a = parser().parse(new String[] {"f"});
        assertNull(a.value("--name"));
        assertEquals(List.of(), a.values("--port"));
        assertFalse(a.has("--port"));
        assertEquals(OptionalInt.empty(), a.intValue("--port", 0, 1));
        assertThrows(IllegalArgumentException.class, () -> a.value("--nope"), "a typo in a command is a bug");
        assertThrows(IllegalArgumentException.class, () -> a.flag("--port"), "not a flag");
    }

    @Test
    void helpIsRecognisedAnywhereBeforeDoubleDash() throws UsageException {
        assertTrue(parser().parse(new String[] {"--help"}).helpRequested());
        assertTrue(parser().parse(new String[] {"--bogus", "--port", "-h"}).helpRequested());
    }

    @Test
    void usageErrors() {
        assertEquals("unknown option --bogus", message("f", "--bogus"));
        assertEquals("unknown option -x", message("f", "-x"));
        assertEquals("option --port needs a value N", message("f", "--port"));
        assertEquals("option --quiet takes no value", message("f", "--quiet=yes"));
        assertEquals("missing FILE", message());
        assertEquals("missing FILE", message("-q"));
        assertEquals("unexpected argument 'd'", message("a", "b", "c", "d"));
    }

    @Test
    void integers() throws UsageException {
        assertEquals(10, ParsedArgs.parseInt("--n", "10", 0, 65535));
        assertEquals(10, ParsedArgs.parseInt("--n", "010", 0, 65535), "no octal surprise");
        assertEquals(0x1234, ParsedArgs.parseInt("--n", "0x1234", 0, 65535));
        assertEquals(0xABCD, ParsedArgs.parseInt("--n", "0XabCD", 0, 65535));
        assertEquals("--n: 'ten' is not an integer",
                assertThrows(UsageException.class, () -> ParsedArgs.parseInt("--n", "ten", 0, 9)).getMessage());
        assertEquals("--n: 65536 is out of range 0..65535",
                assertThrows(UsageException.class, () -> ParsedArgs.parseInt("--n", "65536", 0, 65535)).getMessage());
        assertThrows(UsageException.class, () -> ParsedArgs.parseInt("--n", "-1", 0, 65535));
        assertThrows(UsageException.class, () -> ParsedArgs.parseInt("--n", "99999999999999999999", 0, 65535));
        assertThrows(UsageException.class, () -> ParsedArgs.parseInt("--n", "0x", 0, 65535));
    }

    @Test
    void usageTextListsEveryOptionAligned() {
        String u = parser().usage();
        assertEquals("""
                Usage: rnic test [options] FILE...

                Tests the parser.

                Options:
                  -h, --help        show this help and exit
                  -p, --port N      a port
                      --name TEXT   a name
                  -q, --quiet       be quiet
                  -v                short-only flag

                Exit status: 0.
                """, u);
    }

    @Test
    void declaringANameTwiceIsABug() {
        assertThrows(IllegalArgumentException.class, () -> parser().flag("-q", null, "again"));
        assertThrows(IllegalArgumentException.class, () -> parser().flag(null, null, "nameless"));
    }
}
