package io.rnic.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The {@code rnic} dispatcher on picocli: help, usage errors, suggestions and exit statuses for every command. */
class RnicTest {

    /** A command that echoes its arguments, or fails on demand: what a later command plugs in like. */
    @Command(name = "echo", description = "print the words")
    static final class Echo extends RnicCommand {
        @Option(names = {"-u", "--upper"}, description = "shout")
        boolean upper;

        @Parameters(index = "0..2", paramLabel = "WORD", description = "at most three words")
        List<String> words = new ArrayList<>();

        @Override
        protected int execute() {
            String s = String.join(" ", words);
            if (s.equals("boom")) {
                throw new IllegalStateException("kaboom");
            }
            out.println(upper ? s.toUpperCase() : s);
            return 0;
        }
    }

    private static Rnic withEcho() {
        List<Class<?>> commands = Rnic.builtIn();
        commands.add(Echo.class);
        return new Rnic(commands);
    }

    /** Every command and subcommand as the user types it after {@code rnic}: "decode", "experiment loss", ... */
    private static List<String> commandPaths(CommandLine cl) {
        List<String> paths = new ArrayList<>();
        cl.getSubcommands().forEach((name, sub) -> {
            paths.add(name);
            commandPaths(sub).forEach(p -> paths.add(name + " " + p));
        });
        return paths;
    }

    private static CommandLine tree() {
        return new Rnic(Rnic.builtIn()).commandLine(new PrintStream(PrintStream.nullOutputStream()),
                new PrintStream(PrintStream.nullOutputStream()));
    }

    @Test
    void helpListsEveryCommandWithItsSummary() {
        for (String h : new String[] {"--help", "-h", "help"}) {
            CliRun r = CliRun.with(withEcho(), h);
            assertEquals(0, r.status(), r.toString());
            assertTrue(r.out().startsWith("Usage: rnic "), r.out());
            // The summary column is aligned to the longest command name.
            assertTrue(r.out().matches("(?s).*\n  decode +decode the RoCEv2 packets of pcap/pcapng captures.*"), r.out());
            assertTrue(r.out().matches("(?s).*\n  echo +print the words\n.*"), r.out());
            assertTrue(r.out().matches("(?s).*\n  generate-completion +Generate bash/zsh completion script.*"), r.out());
            assertTrue(r.out().contains("\n  2    a usage error"), "usage errors exit 2, and the help says so: " + r.out());
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
    void unknownCommandOrOptionExits2WithASuggestion() {
        CliRun r = CliRun.rnic("decod", "x");
        assertEquals(2, r.status());
        assertEquals("", r.out());
        assertTrue(r.err().startsWith("rnic: unknown command 'decod'\n"), r.err());
        assertTrue(r.err().contains("Did you mean: rnic decode"), r.err());
        assertTrue(r.err().endsWith("Try 'rnic --help' for more information.\n"), r.err());
        CliRun o = CliRun.rnic("--verison");
        assertEquals(2, o.status());
        assertTrue(o.err().startsWith("rnic: unknown option --verison\n"), o.err());
        assertTrue(o.err().contains("Possible solutions: --version"), o.err());
        CliRun d = CliRun.rnic("decode", "--quite", "x.pcap");
        assertEquals(2, d.status());
        assertEquals("rnic decode: unknown option --quite\nPossible solutions: --quiet\n"
                + "Try 'rnic decode --help' for more information.\n", d.err());
        assertEquals(2, CliRun.rnic("help", "nope").status());
        assertEquals(2, CliRun.rnic("frobnicate").status());
    }

    /** Before picocli the hand-written parser ignored the unknown word and printed loss's help. */
    @Test
    void anUnknownSubcommandIsRefusedWithASuggestionEvenWithHelp() {
        for (String[] args : new String[][] {{"experiment", "nonesuch", "--help"}, {"experiment", "nonesuch"}}) {
            CliRun r = CliRun.rnic(args);
            assertEquals(2, r.status(), r.toString());
            assertEquals("", r.out(), "no help of another command: " + r.out());
            assertTrue(r.err().startsWith("rnic experiment: unknown experiment 'nonesuch'\n"), r.err());
            assertTrue(r.err().contains("Known experiments: loss, incast, pfc"), r.err());
        }
        CliRun close = CliRun.rnic("experiment", "los");
        assertEquals(2, close.status());
        assertTrue(close.err().contains("Did you mean: experiment loss?"), close.err());
        CliRun top = CliRun.rnic("frobnicate", "--help");
        assertEquals(2, top.status());
        assertTrue(top.err().startsWith("rnic: unknown command 'frobnicate'"), top.err());
    }

    @Test
    void dispatchesToTheNamedCommandWithTheRemainingArguments() {
        CliRun r = CliRun.with(withEcho(), "echo", "-u", "a", "b");
        assertEquals(0, r.status(), r.toString());
        assertEquals("A B\n", r.out());
    }

    /** {@code rnic <path> --help} prints that command's own usage, for every command and subcommand. */
    @Test
    void everyCommandAndSubcommandHasItsOwnHelp() {
        List<String> paths = commandPaths(tree());
        assertTrue(paths.containsAll(List.of("decode", "demo", "soak", "pingpong", "rping", "ucmatose", "udaddy", "perf",
                "udp-probe", "experiment", "experiment loss", "version", "help", "generate-completion")), paths.toString());
        for (String path : paths) {
            for (String h : new String[] {"--help", "-h"}) {
                String[] args = Stream.concat(Stream.of(path.split(" ")), Stream.of(h)).toArray(String[]::new);
                CliRun r = CliRun.rnic(args);
                assertEquals(0, r.status(), path + ": " + r);
                assertEquals("", r.err(), path);
                String first = r.out().lines().findFirst().orElse("");
                assertTrue(first.matches("Usage: rnic " + java.util.regex.Pattern.quote(path) + "( .*)?"),
                        "rnic " + path + " " + h + " begins: " + first);
                assertTrue(r.out().contains("-h, --help"), path + ": " + r.out());
                assertFalse(r.out().contains("\\\n"), "no text-block line break left in the text: " + r.out());
            }
        }
    }

    @Test
    void helpOfACommandIsItsDashDashHelp() {
        Rnic rnic = withEcho();
        for (String name : tree().getSubcommands().keySet()) {
            CliRun help = CliRun.with(rnic, "help", name);
            assertEquals(0, help.status(), name + ": " + help);
            assertEquals(CliRun.with(rnic, name, "--help").out(), help.out(), name);
        }
        CliRun echo = CliRun.with(rnic, "echo", "--help");
        assertEquals(echo.out(), CliRun.with(rnic, "help", "echo").out());
        assertEquals(echo.out(), CliRun.with(rnic, "echo", "--bogus", "-h").out(), "help wins over a mistyped option");
    }

    /** Each command's help names its own exit statuses, usage errors (2) and internal errors (70) among them. */
    @Test
    void everyCommandsHelpStatesItsExitStatuses() {
        for (String path : commandPaths(tree())) {
            if (path.equals("help") || path.equals("generate-completion")) {
                continue; // picocli's own commands
            }
            String[] args = Stream.concat(Stream.of(path.split(" ")), Stream.of("--help")).toArray(String[]::new);
            String out = CliRun.rnic(args).out();
            assertTrue(out.contains("\nExit status:\n  0    "), path + ": " + out);
            assertTrue(out.matches("(?s).*\n  2    [^\n]*usage error.*"), path + ": " + out);
            assertTrue(out.contains("\n  70   an internal error"), path + ": " + out);
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
        assertEquals(70, r.status());
        assertTrue(r.err().contains("rnic echo: internal error: java.lang.IllegalStateException: kaboom"), r.err());
        assertTrue(r.err().contains("\tat io.rnic.bench.cli.RnicTest$Echo.execute"), "with the stack: " + r.err());
    }

    @Test
    void integersMayBeHexadecimalAndALeadingZeroIsNotOctal() {
        assertEquals(10, Converters.parseInt("10"));
        assertEquals(10, Converters.parseInt("010"));
        assertEquals(0x1234, Converters.parseInt("0x1234"));
        assertEquals(0xABCD, Converters.parseInt("0XabCD"));
        assertThrows(CommandLine.TypeConversionException.class, () -> Converters.parseInt("ten"));
        assertThrows(CommandLine.TypeConversionException.class, () -> Converters.parseInt("0x"));
        assertThrows(CommandLine.TypeConversionException.class, () -> Converters.parseInt("99999999999999999999"));
        assertThrows(CommandLine.TypeConversionException.class, () -> Converters.parseInt("4294967296"));
    }

    @Test
    void theLastOccurrenceOfAnOptionWins() {
        CliRun r = CliRun.rnic("decode", "--ip-id", "70000", "--ip-id", "0", CliRun.pcap("bad-icrc-ipid-mismatch.pcap"));
        assertEquals(0, r.status(), r.toString());
    }

    @Test
    void commandNamesAreUnique() {
        assertThrows(IllegalArgumentException.class, () -> new Rnic(List.of(DecodeCommand.class, DecodeCommand.class)));
        assertThrows(IllegalArgumentException.class, () -> new Rnic(List.of(String.class)), "not a command");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Rnic(List.of(Named.class)));
        assertTrue(e.getMessage().contains("two commands are named help"), e.getMessage());
    }

    /** A command that would shadow picocli's help command. */
    @Command(name = "help")
    static final class Named extends RnicCommand {
        @Override
        protected int execute() {
            return 0;
        }
    }

    /** The completion script is bash, works in zsh (bashcompinit), and completes every command. */
    @Test
    void generateCompletionPrintsABashScriptThatZshCanLoad() {
        CliRun r = CliRun.rnic("generate-completion");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().startsWith("#!/usr/bin/env bash"), r.out().substring(0, 100));
        assertTrue(r.out().contains("bashcompinit"), "zsh support");
        assertTrue(r.out().contains("complete -F _complete_rnic"), "registers the completion for rnic");
        for (String c : new String[] {"decode", "experiment", "loss", "--loss-recovery", "--wire", "accept-unverifiable"}) {
            assertTrue(r.out().contains(c), c);
        }
        assertFalse(r.out().contains("\r\n"), "Unix line ends");
    }
}
