package io.rnic.bench.cli;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The result of {@link ArgParser#parse}. Options are looked up by any of their declared names;
 * asking for an undeclared one is a programming error and throws
 * {@link IllegalArgumentException}, so a typo in a command cannot silently read "absent".
 */
public final class ParsedArgs {
    private final ArgParser parser;
    private final Map<String, List<String>> values;
    private final List<String> positionals;
    private final boolean help;

    ParsedArgs(ArgParser parser, Map<String, List<String>> values, List<String> positionals, boolean help) {
        this.parser = parser;
        this.values = values;
        this.positionals = List.copyOf(positionals);
        this.help = help;
    }

    /** True if {@code -h} or {@code --help} was given; nothing else was parsed then. */
    public boolean helpRequested() {
        return help;
    }

    /** True if the flag was given. */
    public boolean flag(String name) {
        if (!parser.isFlag(name)) {
            throw new IllegalArgumentException(name + " is not a flag of " + parser.program());
        }
        return values.containsKey(parser.keyOf(name));
    }

    /** True if the option was given at least once. */
    public boolean has(String name) {
        return values.containsKey(parser.keyOf(name));
    }

    /** Every value given for a repeatable option, in command-line order. */
    public List<String> values(String name) {
        return values.getOrDefault(parser.keyOf(name), List.of());
    }

    /** The last value given for the option, or {@code null}: a later option overrides an earlier one. */
    public String value(String name) {
        List<String> v = values(name);
        return v.isEmpty() ? null : v.get(v.size() - 1);
    }

    /** The option's last value as an integer in {@code [min, max]}, if given. */
    public OptionalInt intValue(String name, int min, int max) throws UsageException {
        String v = value(name);
        return v == null ? OptionalInt.empty() : OptionalInt.of(parseInt(name, v, min, max));
    }

    /** The positional arguments, in order. */
    public List<String> positionals() {
        return positionals;
    }

    /**
     * Parses a decimal or {@code 0x} hexadecimal integer. Hex is accepted because tools print IP
     * identifications and QP numbers in hex; a leading zero does not mean octal.
     */
    public static int parseInt(String option, String text, int min, int max) throws UsageException {
        String t = text.strip();
        long v;
        try {
            if (t.startsWith("0x") || t.startsWith("0X")) {
                v = Long.parseLong(t.substring(2), 16);
            } else {
                v = Long.parseLong(t);
            }
        } catch (NumberFormatException e) {
            throw new UsageException(option + ": '" + text + "' is not an integer");
        }
        if (v < min || v > max) {
            throw new UsageException(option + ": " + text + " is out of range " + min + ".." + max);
        }
        return (int) v;
    }
}
