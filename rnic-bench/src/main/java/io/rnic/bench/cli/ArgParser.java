package io.rnic.bench.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small declarative command-line parser shared by the {@code rnic} commands: flags, options
 * that take a value, and positional arguments. Hand-rolled because the project takes no
 * dependency for this, and because a declaration that also produces the help text keeps the
 * two from drifting apart.
 *
 * <p>Accepted forms: {@code --name value}, {@code --name=value}, {@code -n value}, flags
 * {@code --quiet} / {@code -q}, and {@code --} to end options. {@code -h} and {@code --help}
 * are always declared. Options may be repeated; {@link ParsedArgs#values} returns every
 * occurrence.
 */
public final class ArgParser {
    /** One declared option. {@code valueName} is null for flags. */
    record Option(String shortName, String longName, String valueName, String help) {
        String key() {
            return longName != null ? longName : shortName;
        }

        String label() {
            String names = shortName != null && longName != null ? shortName + ", " + longName
                    : shortName != null ? shortName : "    " + longName;
            return valueName == null ? names : names + " " + valueName;
        }
    }

    private static final Option HELP = new Option("-h", "--help", null, "show this help and exit");

    private final String program;
    private final String synopsis;
    private final Map<String, Option> byName = new LinkedHashMap<>();
    private final List<Option> options = new ArrayList<>();
    private String description = "";
    private String epilog = "";
    private String positionalName = "ARG";
    private int minPositionals;
    private int maxPositionals;

    /**
     * @param program  the command as the user types it, for example {@code rnic decode}
     * @param synopsis what follows the program in the usage line, for example
     *                 {@code [options] FILE...}
     */
    public ArgParser(String program, String synopsis) {
        this.program = program;
        this.synopsis = synopsis;
        add(HELP);
    }

    /** A paragraph printed under the usage line. */
    public ArgParser description(String text) {
        this.description = text;
        return this;
    }

    /** Text printed after the option list, such as the exit statuses. */
    public ArgParser epilog(String text) {
        this.epilog = text;
        return this;
    }

    /** A boolean option. Either name may be null, not both. */
    public ArgParser flag(String shortName, String longName, String help) {
        return add(new Option(shortName, longName, null, help));
    }

    /** An option that takes a value, shown in the help as {@code valueName}. */
    public ArgParser option(String shortName, String longName, String valueName, String help) {
        return add(new Option(shortName, longName, valueName, help));
    }

    /** How many positional arguments are allowed, and what the error messages call them. */
    public ArgParser positionals(String name, int min, int max) {
        this.positionalName = name;
        this.minPositionals = min;
        this.maxPositionals = max;
        return this;
    }

    private ArgParser add(Option o) {
        if (o.shortName() == null && o.longName() == null) {
            throw new IllegalArgumentException("an option needs a name");
        }
        for (String n : new String[] {o.shortName(), o.longName()}) {
            if (n != null && byName.putIfAbsent(n, o) != null) {
                throw new IllegalArgumentException("option " + n + " declared twice");
            }
        }
        options.add(o);
        return this;
    }

    /**
     * Parses {@code args}. If {@code -h} or {@code --help} appears before {@code --}, the result
     * only says so, whatever else is on the line: asking for help must always work.
     *
     * @throws UsageException for unknown options, missing values, or a wrong number of
     *                        positional arguments
     */
    public ParsedArgs parse(String[] args) throws UsageException {
        for (String a : args) {
            if (a.equals("--")) {
                break;
            }
            if (a.equals("-h") || a.equals("--help")) {
                return new ParsedArgs(this, Map.of(), List.of(), true);
            }
        }
        Map<String, List<String>> values = new LinkedHashMap<>();
        List<String> positionals = new ArrayList<>();
        boolean onlyPositionals = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (onlyPositionals || a.equals("-") || !a.startsWith("-")) {
                positionals.add(a);
                continue;
            }
            if (a.equals("--")) {
                onlyPositionals = true;
                continue;
            }
            String name = a;
            String inline = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                name = a.substring(0, eq);
                inline = a.substring(eq + 1);
            }
            Option o = byName.get(name);
            if (o == null) {
                throw new UsageException("unknown option " + name);
            }
            String value;
            if (o.valueName() == null) {
                if (inline != null) {
                    throw new UsageException("option " + name + " takes no value");
                }
                value = "true";
            } else if (inline != null) {
                value = inline;
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new UsageException("option " + name + " needs a value " + o.valueName());
            }
            values.computeIfAbsent(o.key(), k -> new ArrayList<>()).add(value);
        }
        if (positionals.size() < minPositionals) {
            throw new UsageException(minPositionals == 1 && positionals.isEmpty()
                    ? "missing " + positionalName
                    : "expected at least " + minPositionals + " " + positionalName + " arguments, got " + positionals.size());
        }
        if (positionals.size() > maxPositionals) {
            throw new UsageException("unexpected argument '" + positionals.get(maxPositionals) + "'");
        }
        return new ParsedArgs(this, values, positionals, false);
    }

    /** The key under which an option's values are stored; fails for undeclared names (a bug). */
    String keyOf(String name) {
        Option o = byName.get(name);
        if (o == null) {
            throw new IllegalArgumentException(program + " declares no option " + name);
        }
        return o.key();
    }

    boolean isFlag(String name) {
        return byName.get(name) != null && byName.get(name).valueName() == null;
    }

    /** The help text: usage line, description, options, epilog. */
    public String usage() {
        StringBuilder s = new StringBuilder();
        s.append("Usage: ").append(program).append(' ').append(synopsis).append('\n');
        if (!description.isEmpty()) {
            s.append('\n').append(description.strip()).append('\n');
        }
        s.append("\nOptions:\n");
        int width = 0;
        for (Option o : options) {
            width = Math.max(width, o.label().length());
        }
        for (Option o : options) {
            s.append("  ").append(o.label());
            s.append(" ".repeat(width - o.label().length() + 3)).append(o.help()).append('\n');
        }
        if (!epilog.isEmpty()) {
            s.append('\n').append(epilog.strip()).append('\n');
        }
        return s.toString();
    }

    /** The command as the user types it, for messages. */
    public String program() {
        return program;
    }
}
