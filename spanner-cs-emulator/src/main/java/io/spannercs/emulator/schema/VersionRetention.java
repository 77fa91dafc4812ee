package io.spannercs.emulator.schema;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A database's {@code version_retention_period}: how long Spanner keeps old row versions for reads
 * in the past. Written as Spanner writes it, a whole number and a unit of days, hours, minutes or
 * seconds ({@code '7d'}, {@code '72h'}, {@code '90m'}, {@code '3600s'}), from 1 hour to 7 days; 1
 * hour when not set.
 *
 * @param text the value as written (what {@code information_schema.database_options} shows)
 * @param period the duration it stands for
 */
public record VersionRetention(String text, Duration period) {
    /** The option's name in GoogleSQL DDL and {@code information_schema.database_options}. */
    public static final String OPTION = "version_retention_period";

    /** The option's name in PostgreSQL DDL ({@code ALTER DATABASE d SET spanner.<name> = ...}). */
    public static final String PG_OPTION = "spanner." + OPTION;

    public static final Duration MIN = Duration.ofHours(1);
    public static final Duration MAX = Duration.ofDays(7);

    /** Spanner's default, one hour. */
    public static final VersionRetention DEFAULT = new VersionRetention("1h", MIN);

    private static final Pattern FORM = Pattern.compile("(\\d{1,12})([smhd])");

    public VersionRetention {
        Objects.requireNonNull(text);
        Objects.requireNonNull(period);
    }

    /**
     * Parses {@code 1h}, {@code 90m}, {@code 3600s}, {@code 7d}.
     *
     * @throws IllegalArgumentException naming the option, the value and the accepted forms, for a
     *     malformed value or one outside 1 hour to 7 days
     */
    public static VersionRetention parse(String text) {
        Matcher m = FORM.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "Invalid "
                            + OPTION
                            + " '"
                            + text
                            + "': expected a whole number of days, hours, minutes or seconds"
                            + " such as '1h', '90m', '3600s' or '7d', from 1h to 7d");
        }
        long n = Long.parseLong(m.group(1));
        Duration d;
        switch (m.group(2)) {
            case "s":
                d = Duration.ofSeconds(n);
                break;
            case "m":
                d = Duration.ofMinutes(n);
                break;
            case "h":
                d = Duration.ofHours(n);
                break;
            default:
                d = Duration.ofDays(n);
        }
        return of(m.group(0), d);
    }

    /**
     * A period given as a duration; written in the largest whole unit ({@code 2h}, {@code 90m}).
     *
     * @throws IllegalArgumentException outside 1 hour to 7 days
     */
    public static VersionRetention of(Duration period) {
        long s = period.getSeconds();
        String text;
        if (period.getNano() != 0) {
            throw new IllegalArgumentException(
                    OPTION + " must be a whole number of seconds, got " + period);
        } else if (s % 86_400 == 0) {
            text = s / 86_400 + "d";
        } else if (s % 3_600 == 0) {
            text = s / 3_600 + "h";
        } else if (s % 60 == 0) {
            text = s / 60 + "m";
        } else {
            text = s + "s";
        }
        return of(text, period);
    }

    private static VersionRetention of(String text, Duration d) {
        if (d.compareTo(MIN) < 0 || d.compareTo(MAX) > 0) {
            throw new IllegalArgumentException(
                    "Invalid "
                            + OPTION
                            + " '"
                            + text
                            + "': it must be between 1h and 7d (Spanner keeps old versions for"
                            + " at least 1 hour and at most 7 days)");
        }
        return new VersionRetention(text, d);
    }

    public long micros() {
        return period.toSeconds() * 1_000_000L;
    }

    @Override
    public String toString() {
        return text;
    }
}
