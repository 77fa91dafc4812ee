package io.spannercs.emulator.schema;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Change stream options as both dialects write them ({@code OPTIONS (...)} in GoogleSQL, {@code
 * WITH (...)} in PostgreSQL): checks them and builds the {@link ChangeStreamDef}.
 */
final class ChangeStreamOptions {
    private ChangeStreamOptions() {}

    /**
     * @param options option name (lower case) to value as written, without quotes
     * @throws IllegalArgumentException for an unknown option or an invalid value
     */
    static ChangeStreamDef build(
            String name,
            boolean forAll,
            Map<String, List<String>> watched,
            Map<String, String> options) {
        PartitionMode mode = PartitionMode.IMMUTABLE_KEY_RANGE;
        ValueCaptureType capture = ValueCaptureType.OLD_AND_NEW_VALUES;
        Duration retention = ChangeStreamDef.DEFAULT_RETENTION;
        boolean excludeTtl = false;
        for (Map.Entry<String, String> o : options.entrySet()) {
            String v = o.getValue();
            switch (o.getKey()) {
                case "partition_mode":
                    mode = enumOption(PartitionMode.class, o.getKey(), v);
                    break;
                case "value_capture_type":
                    capture = enumOption(ValueCaptureType.class, o.getKey(), v);
                    break;
                case "retention_period":
                    retention = parseRetention(v);
                    break;
                case "exclude_ttl_deletes":
                    excludeTtl = Boolean.parseBoolean(v);
                    break;
                case "exclude_insert":
                case "exclude_update":
                case "exclude_delete":
                    if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
                        throw new IllegalArgumentException(
                                "Invalid value '" + v + "' for change stream option " + o.getKey());
                    }
                    break;
                case "allow_txn_exclusion":
                    throw new IllegalArgumentException(
                            "Change stream option "
                                    + o.getKey()
                                    + " is not supported by the emulator");
                default:
                    throw new IllegalArgumentException(
                            "Unknown change stream option " + o.getKey() + " for " + name);
            }
        }
        return new ChangeStreamDef(
                name, forAll, watched, mode, capture, retention, excludeTtl, options);
    }

    private static <E extends Enum<E>> E enumOption(Class<E> type, String option, String value) {
        try {
            return Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Invalid value '" + value + "' for change stream option " + option);
        }
    }

    /** Spanner accepts {@code 36h}, {@code 2d}, {@code 3600s}, {@code 90m}; range 1 to 7 days. */
    static Duration parseRetention(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.length() < 2) {
            throw new IllegalArgumentException("Invalid retention_period '" + text + "'");
        }
        long n;
        try {
            n = Long.parseLong(t.substring(0, t.length() - 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid retention_period '" + text + "'");
        }
        Duration d;
        switch (t.charAt(t.length() - 1)) {
            case 'd':
                d = Duration.ofDays(n);
                break;
            case 'h':
                d = Duration.ofHours(n);
                break;
            case 'm':
                d = Duration.ofMinutes(n);
                break;
            case 's':
                d = Duration.ofSeconds(n);
                break;
            default:
                throw new IllegalArgumentException("Invalid retention_period '" + text + "'");
        }
        if (d.compareTo(Duration.ofDays(1)) < 0 || d.compareTo(Duration.ofDays(7)) > 0) {
            throw new IllegalArgumentException(
                    "retention_period must be between 1d and 7d, got '" + text + "'");
        }
        return d;
    }
}
