package io.spannercs.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Command-line flags of a benchmark: {@code --name value} or {@code --name=value}. Every flag must
 * be read with a default; {@link #finish()} rejects flags no benchmark asked for, so a typo fails
 * instead of silently running the default.
 */
final class BenchArgs {
    private final Map<String, String> values = new LinkedHashMap<>();
    private final Map<String, String> described = new LinkedHashMap<>();
    private final boolean help;

    BenchArgs(String[] args) {
        boolean h = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                h = true;
                continue;
            }
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("Unexpected argument '" + a + "'");
            }
            String name = a.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new IllegalArgumentException("Flag --" + name + " needs a value");
            }
            values.put(name, value);
        }
        this.help = h;
    }

    long longValue(String name, long def, String meaning) {
        String v = take(name, Long.toString(def), meaning);
        return Long.parseLong(v.replace("_", "").replace(",", ""));
    }

    int intValue(String name, int def, String meaning) {
        return Math.toIntExact(longValue(name, def, meaning));
    }

    String string(String name, String def, String meaning) {
        return take(name, def, meaning);
    }

    List<Integer> intList(String name, String def, String meaning) {
        List<Integer> out = new ArrayList<>();
        for (String s : take(name, def, meaning).split(",")) {
            out.add(Integer.parseInt(s.trim()));
        }
        return out;
    }

    /** A duration such as {@code 500ms}, {@code 30s} or {@code 2m}. */
    Duration duration(String name, String def, String meaning) {
        String v = take(name, def, meaning).trim();
        if (v.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
        } else if (v.endsWith("s")) {
            return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
        } else if (v.endsWith("m")) {
            return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
        }
        throw new IllegalArgumentException(
                "--" + name + ": '" + v + "' is not like 500ms, 30s, 2m");
    }

    private String take(String name, String def, String meaning) {
        described.put(name, meaning + " (default " + def + ")");
        String v = values.remove(name);
        return v == null ? def : v;
    }

    /**
     * Call after reading every flag.
     *
     * @return false when the usage was printed (for {@code --help}) and the benchmark should exit
     */
    boolean finish(String benchmark) {
        if (help) {
            System.out.println("Usage: " + benchmark + " [flags]");
            described.forEach((n, m) -> System.out.printf("  --%-22s %s%n", n, m));
            return false;
        }
        if (!values.isEmpty()) {
            throw new IllegalArgumentException(
                    "Unknown flags " + values.keySet() + "; known: " + described.keySet());
        }
        return true;
    }
}
