package io.rnic.bench.cli;

import java.util.Map;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A command's own defaults for shared options ({@link Mixins}) whose usual default does not suit
 * it, for example {@code soak}'s {@code --wire sim}. picocli asks the provider before the
 * option's declared default, and the command's help shows the provider's value.
 */
abstract class CommandDefaults implements IDefaultValueProvider {
    private final Map<String, String> byOption;

    /** @param byOption default values by the option's long name, for example {@code "--wire" -> "sim"} */
    CommandDefaults(Map<String, String> byOption) {
        this.byOption = Map.copyOf(byOption);
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        return arg instanceof OptionSpec o ? byOption.get(o.longestName()) : null;
    }
}
