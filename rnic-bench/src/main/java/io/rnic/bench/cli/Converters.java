package io.rnic.bench.cli;

import io.rnic.bench.experiment.LossExperiment;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * How option values are read, for every command at once ({@link #register}).
 *
 * <p>Integers are decimal or {@code 0x} hexadecimal, because tools print IP identifications and
 * QP numbers in hex; a leading zero does not mean octal. A choice (an enum) is spelled as its
 * {@code toString()}, the lower-case word the command line uses ({@code sim}, {@code
 * accept-unverifiable}): picocli then offers those words for completion and in {@code
 * ${COMPLETION-CANDIDATES}}, and a wrong word is answered with the list.
 */
final class Converters {
    /** The choices the commands take, each an enum whose {@code toString()} is its spelling. */
    private static final List<Class<? extends Enum<?>>> CHOICES = List.of(Choices.WireKind.class, Choices.GsoMode.class,
            Choices.IcrcMode.class, Choices.QpKind.class, LossExperiment.Mode.class, LossExperiment.Op.class);

    private Converters() {
    }

    /**
     * Registers the converters with {@code cl} and every subcommand it has now (picocli copies a
     * registration only to the subcommands present when it is made).
     */
    static void register(CommandLine cl) {
        cl.registerConverter(Integer.class, Converters::parseInt);
        cl.registerConverter(Integer.TYPE, Converters::parseInt);
        cl.registerConverter(Long.class, Converters::parseLong);
        cl.registerConverter(Long.TYPE, Converters::parseLong);
        for (Class<? extends Enum<?>> c : CHOICES) {
            registerChoice(cl, c);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void registerChoice(CommandLine cl, Class<? extends Enum<?>> type) {
        cl.registerConverter((Class) type, choice((Class) type));
    }

    /** A converter that accepts the {@code toString()} of one of {@code type}'s constants. */
    static <E extends Enum<E>> ITypeConverter<E> choice(Class<E> type) {
        return value -> {
            for (E e : type.getEnumConstants()) {
                if (e.toString().equals(value)) {
                    return e;
                }
            }
            throw new TypeConversionException("'" + value + "' is not " + spelled(type));
        };
    }

    /** The spellings of {@code type}'s constants: {@code gbn, reorder or sr}. */
    static String spelled(Class<? extends Enum<?>> type) {
        List<String> words = new ArrayList<>();
        for (Enum<?> e : type.getEnumConstants()) {
            words.add(e.toString());
        }
        return words.size() == 1 ? words.get(0)
                : String.join(", ", words.subList(0, words.size() - 1)) + " or " + words.get(words.size() - 1);
    }

    static Integer parseInt(String text) {
        long v = parseLong(text);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new TypeConversionException("'" + text + "' is too large for an integer");
        }
        return (int) v;
    }

    static Long parseLong(String text) {
        String t = text.strip();
        try {
            if (t.startsWith("0x") || t.startsWith("0X")) {
                return Long.parseLong(t.substring(2), 16);
            }
            return Long.parseLong(t);
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + text + "' is not an integer");
        }
    }
}
