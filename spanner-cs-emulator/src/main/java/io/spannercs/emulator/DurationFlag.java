package io.spannercs.emulator;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration syntax of the command lines (the emulator, the demo and the job): a whole number
 * and a unit, e.g. {@code 500ms}, {@code 10s}, {@code 2min}, {@code 1h}, {@code 1d}. The units are
 * Flink's ({@code TimeUtils.parseDuration}) from milliseconds to days: {@code ms}, {@code s},
 * {@code min} or {@code m}, {@code h}, {@code d}, and their long forms ({@code seconds} ...). A
 * bare number is an error rather than milliseconds, which a user reading {@code 10} as seconds
 * would not notice.
 *
 * <p>The job module cannot use this class on a Flink cluster (the emulator is not in the job jar),
 * so {@code io.spannercs.job.DurationFlag} repeats it; a test there checks that both agree.
 */
public final class DurationFlag {
    /** The accepted forms, for error messages and help. */
    public static final String FORMS = "a whole number and a unit, e.g. 500ms, 10s, 2min or 1h";

    private static final Pattern FORM = Pattern.compile("(\\d+)\\s*([a-z]+)");
    private static final Pattern BARE_NUMBER = Pattern.compile("[-+]?\\d+(\\.\\d*)?");
    private static final Map<String, Duration> UNITS = units();

    private DurationFlag() {}

    /**
     * Parses {@code value} of {@code flag} (e.g. {@code --churn-interval}).
     *
     * @param zeroAllowed whether {@code 0s} (off) is accepted; otherwise the duration must be
     *     positive
     * @throws IllegalArgumentException with a one-line message that starts with the flag
     */
    public static Duration parse(String flag, String value, boolean zeroAllowed) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (BARE_NUMBER.matcher(v).matches()) {
            throw new IllegalArgumentException(
                    flag
                            + " needs a unit, e.g. "
                            + (zeroAllowed ? "0s or " : "")
                            + "10s; got '"
                            + value
                            + "'");
        }
        Matcher m = FORM.matcher(v);
        Duration unit = m.matches() ? UNITS.get(m.group(2)) : null;
        Duration d = null;
        if (unit != null) {
            try {
                d = unit.multipliedBy(Long.parseLong(m.group(1)));
            } catch (ArithmeticException | NumberFormatException tooLong) {
                d = null;
            }
        }
        if (d == null) {
            throw new IllegalArgumentException(
                    flag + " '" + value + "' is not a duration: use " + FORMS);
        }
        if (d.isZero() && !zeroAllowed) {
            throw new IllegalArgumentException(flag + " '" + value + "' must be more than 0");
        }
        return d;
    }

    private static Map<String, Duration> units() {
        Map<String, Duration> u = new java.util.HashMap<>();
        for (String s : new String[] {"ms", "milli", "millis", "millisecond", "milliseconds"}) {
            u.put(s, Duration.ofMillis(1));
        }
        for (String s : new String[] {"s", "sec", "secs", "second", "seconds"}) {
            u.put(s, Duration.ofSeconds(1));
        }
        for (String s : new String[] {"m", "min", "minute", "minutes"}) {
            u.put(s, Duration.ofMinutes(1));
        }
        for (String s : new String[] {"h", "hour", "hours"}) {
            u.put(s, Duration.ofHours(1));
        }
        for (String s : new String[] {"d", "day", "days"}) {
            u.put(s, Duration.ofDays(1));
        }
        return Map.copyOf(u);
    }
}
