package io.rnic.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintStream;
import java.util.List;
import org.junit.jupiter.api.Test;

class RnicTest {

    /** A command that echoes its arguments, or fails on demand: what a later command plugs in like. */
    private static final class Echo extends ParsedCommand {
        private final ArgParser parser = new ArgParser("rnic echo", "[options] WORD...")
                .flag("-u", "--upper", "shout")
                .positionals("WORD", 0, 3);

        @Override
        public String name() {
            return "echo";
        }

        @Override
        public String summary() {
            return "print the words";
        }

        @Override
        protected ArgParser parser() {
            return parser;
        }

        @Override
        protected int execute(ParsedArgs args, PrintStream out, PrintStream err) {
            String s = String.join(" ", args.positionals());
            if (s.equals("boom")) {
                throw new IllegalStateException("kaboom");
            }
            out.println(args.flag("--upper") ? s.toUpperCase() : s);
            return 0;
        }
    }

    private static Rnic withEcho() {
        List<Command> commands = Rnic.builtIn();
        commands.add(new Echo());
        return new Rnic(commands);
    }

    @Test
    void helpListsEveryCommandWithItsSummary() {
        for (String h : new String[] {"--help", "-h", "help"}) {
            CliRun r = CliRun.with(withEcho(), h);
            assertEquals(0, r.status(), r.toString());
            assertTrue(r.out().startsWith("Usage: rnic <command> [args]"), r.out());
            // The summary column is aligned to the longest command name.
            assertTrue(r.out().matches("(?s).*\n  decode +decode the RoCEv2 packets of pcap/pcapng captures.*"), r.out());
            assertTrue(r.out().matches("(?s).*\n  echo +print the words\n.*"), r.out());
            assertEquals("", r.err());
        }
    }

    @Test
    void noArgumentsPrintsTheOverviewToStderrAndFails() {
        CliRun r = CliRun.rnic();
        assertEquals(2, r.status());
        assertEquals("", r.out());
        assertTrue(r.err().contains("Commands:"), r.err());
    }

    @Test
    void unknownCommandOrOptionExits2() {
        CliRun r = CliRun.rnic("frobnicate", "x");
        assertEquals(2, r.status());
        assertTrue(r.err().startsWith("rnic: unknown command 'frobnicate'"), r.err());
        assertTrue(r.err().contains("rnic --help"), r.err());
        CliRun o = CliRun.rnic("--verbose");
        assertEquals(2, o.status());
        assertTrue(o.err().startsWith("rnic: unknown option '--verbose'"), o.err());
        assertEquals(2, CliRun.rnic("help", "nope").status());
    }

    @Test
    void dispatchesToTheNamedCommandWithTheRemainingArguments() {
        CliRun r = CliRun.with(withEcho(), "echo", "-u", "a", "b");
        assertEquals(0, r.status(), r.toString());
        assertEquals("A B\n", r.out());
    }

    @Test
    void everyCommandHasHelp() {
        Rnic rnic = withEcho();
        for (Command c : List.of(new DecodeCommand(), new Echo())) {
            CliRun r = CliRun.with(rnic, c.name(), "--help");
            assertEquals(0, r.status(), r.toString());
            assertEquals(c.usage(), r.out());
            assertTrue(r.out().startsWith("Usage: rnic " + c.name() + " "), r.out());
            assertTrue(r.out().contains("-h, --help"), r.out());
            assertEquals(r.out(), CliRun.with(rnic, "help", c.name()).out());
            assertEquals(r.out(), CliRun.with(rnic, c.name(), "--bogus", "-h").out(), "help wins over errors");
        }
    }

    @Test
    void badOptionsOfACommandExit2WithAHint() {
        CliRun r = CliRun.with(withEcho(), "echo", "--loud");
        assertEquals(2, r.status());
        assertEquals("rnic echo: unknown option --loud\nTry 'rnic echo --help' for more information.\n", r.err());
        CliRun many = CliRun.with(withEcho(), "echo", "a", "b", "c", "d");
        assertEquals(2, many.status());
        assertTrue(many.err().startsWith("rnic echo: unexpected argument 'd'"), many.err());
    }

    @Test
    void anUnexpectedExceptionIsNotMistakenForAVerdict() {
        CliRun r = CliRun.with(withEcho(), "echo", "boom");
        assertEquals(Rnic.EXIT_INTERNAL_ERROR, r.status());
        assertTrue(r.err().contains("rnic echo: internal error: java.lang.IllegalStateException: kaboom"), r.err());
    }

    @Test
    void commandNamesAreUnique() {
        assertThrows(IllegalArgumentException.class, () -> new Rnic(List.of(new DecodeCommand(), new DecodeCommand())));
    }
}
