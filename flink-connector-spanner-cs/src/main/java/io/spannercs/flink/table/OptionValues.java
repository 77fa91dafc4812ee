package io.spannercs.flink.table;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.util.TimeUtils;

/**
 * Reads option values the way users write them, and rejects the rest with a {@link
 * ValidationException} that has no cause: Flink's SQL client shows only the root cause of an error,
 * so that message itself names the option, the value and the accepted forms (Flink's own parsing
 * errors name an enum class or a unit table, not the option).
 */
@Internal
final class OptionValues {
    private OptionValues() {}

    /** A date, a time (seconds and fraction optional), then an offset or zone, if any. */
    private static final Pattern TIMESTAMP =
            Pattern.compile(
                    "(\\d{4}-\\d{2}-\\d{2})(?:[Tt ](\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?))?"
                            + "\\s*(.*)");

    private static final Pattern OFFSET = Pattern.compile("[+-]\\d{2}(?::?\\d{2})?");

    static final String TIMESTAMP_FORMS =
            "use 'yyyy-MM-dd HH:mm:ss' with up to 9 fraction digits, in UTC unless an offset or"
                    + " time zone follows, e.g. '2026-03-01 12:00:00', '2026-03-01T12:00:00Z',"
                    + " '2026-03-01 12:00:00.250+01:00' or '2026-03-01 12:00:00 Europe/Berlin'"
                    + " (a date alone means its midnight in UTC)";

    static final String DURATION_FORMS =
            "use a number with a unit, e.g. '500 ms', '1s', '2 min' or '1h' (units: ms, s, min,"
                    + " h, d; a number alone is milliseconds)";

    /**
     * Checks the values of enum, boolean and duration options that are set, before Flink parses
     * them with its own messages.
     */
    static void check(Map<String, String> options) {
        checkEnum(
                options,
                SpannerCdcOptions.SCAN_STARTUP_MODE,
                SpannerCdcOptions.StartupMode.values());
        checkEnum(
                options,
                SpannerCdcOptions.CHANGELOG_MODE,
                SpannerCdcOptions.ChangelogModeOption.values());
        checkEnum(
                options,
                SpannerCdcOptions.SCAN_UNKNOWN_VALUES,
                SpannerCdcOptions.UnknownValuesOption.values());
        checkEnum(
                options,
                SpannerCdcOptions.RPC_PRIORITY,
                SpannerCdcOptions.RpcPriorityOption.values());
        checkBoolean(options, SpannerCdcOptions.SCAN_REORDER);
        checkDuration(options, SpannerCdcOptions.HEARTBEAT_INTERVAL);
        checkPositiveInt(options, SpannerCdcOptions.SCAN_SNAPSHOT_CHUNK_SIZE);
    }

    private static void checkPositiveInt(Map<String, String> options, ConfigOption<?> option) {
        String text = options.get(option.key());
        if (text == null) {
            return;
        }
        int value;
        try {
            value = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            value = 0;
        }
        if (value < 1) {
            throw new ValidationException(
                    quote(option, text) + " is not valid: use a whole number of at least 1.");
        }
    }

    private static void checkEnum(
            Map<String, String> options, ConfigOption<?> option, Enum<?>[] values) {
        String text = options.get(option.key());
        if (text == null) {
            return;
        }
        List<String> accepted = new ArrayList<>();
        for (Enum<?> v : values) {
            // As Flink matches enum values: by their text, ignoring case.
            if (v.toString().toUpperCase(Locale.ROOT).equals(text.toUpperCase(Locale.ROOT))) {
                return;
            }
            accepted.add("'" + v + "'");
        }
        throw new ValidationException(
                quote(option, text) + " is not valid: use " + alternatives(accepted) + ".");
    }

    private static void checkBoolean(Map<String, String> options, ConfigOption<?> option) {
        String text = options.get(option.key());
        if (text != null && !text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
            throw new ValidationException(
                    quote(option, text) + " is not valid: use 'true' or 'false'.");
        }
    }

    private static void checkDuration(Map<String, String> options, ConfigOption<?> option) {
        String text = options.get(option.key());
        if (text != null) {
            duration(option, text);
        }
    }

    /** A duration as Flink reads it, or a message naming the option and the accepted forms. */
    static Duration duration(ConfigOption<?> option, String text) {
        try {
            return TimeUtils.parseDuration(text);
        } catch (RuntimeException e) {
            throw new ValidationException(
                    quote(option, text) + " is not a duration: " + DURATION_FORMS + ".");
        }
    }

    /**
     * A timestamp in the forms SQL users write: {@code 2026-12-03 04:00:00} (UTC), {@code
     * 2026-12-03T04:00:00Z}, with up to nine fraction digits, with an offset ({@code +01:00},
     * {@code +0100}, {@code +01}) or a zone id after a space ({@code Europe/Berlin}, {@code UTC});
     * a date alone is its midnight in UTC.
     */
    static Instant timestamp(ConfigOption<?> option, String text) {
        Matcher m = TIMESTAMP.matcher(text.trim());
        if (!m.matches()) {
            throw new ValidationException(
                    quote(option, text) + " is not a timestamp: " + TIMESTAMP_FORMS + ".");
        }
        try {
            LocalDateTime local =
                    m.group(2) == null
                            ? LocalDate.parse(m.group(1)).atStartOfDay()
                            : LocalDateTime.parse(m.group(1) + "T" + m.group(2));
            return local.atZone(zone(m.group(3))).toInstant();
        } catch (DateTimeException e) {
            throw new ValidationException(
                    quote(option, text)
                            + " is not a timestamp ("
                            + e.getMessage()
                            + "): "
                            + TIMESTAMP_FORMS
                            + ".");
        }
    }

    private static ZoneId zone(String text) {
        if (text.isEmpty() || text.equalsIgnoreCase("Z")) {
            return ZoneOffset.UTC;
        }
        if (OFFSET.matcher(text).matches()) {
            String digits = text.replace(":", "");
            return ZoneOffset.of(
                    digits.length() == 3
                            ? digits
                            : digits.substring(0, 3) + ":" + digits.substring(3));
        }
        return ZoneId.of(text);
    }

    private static String quote(ConfigOption<?> option, String text) {
        return "'" + option.key() + "' = '" + text + "'";
    }

    private static String alternatives(List<String> values) {
        if (values.size() == 1) {
            return values.get(0);
        }
        return String.join(", ", values.subList(0, values.size() - 1))
                + " or "
                + values.get(values.size() - 1);
    }
}
