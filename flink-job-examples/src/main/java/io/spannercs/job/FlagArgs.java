package io.spannercs.job;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The command lines of the example programs: {@code --name value} or {@code --name=value}, split
 * the same way in each, with the same messages for what is not a known flag with a value.
 */
final class FlagArgs {
    private FlagArgs() {}

    /** One known flag and its value (never null). */
    record Flag(String name, String value) {}

    /**
     * Splits {@code args} into flags, adding to {@code problems} an argument that is not a flag, an
     * unknown flag and a flag without a value.
     */
    static List<Flag> split(String[] args, Predicate<String> known, List<String> problems) {
        List<Flag> flags = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                problems.add("unexpected argument '" + a + "' (flags are --name value)");
                continue;
            }
            String name = a.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                value = args[++i];
            }
            if (!known.test(name)) {
                problems.add("unknown flag --" + name);
            } else if (value == null) {
                problems.add("--" + name + " needs a value");
            } else {
                flags.add(new Flag(name, value));
            }
        }
        return flags;
    }
}
