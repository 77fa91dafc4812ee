package io.spannercs.job.pubsub;

import java.util.regex.Pattern;

/**
 * Pub/Sub topic names from {@code --pubsub-topic}: a pattern with {@code {database}} and {@code
 * {table}}, whose values are made legal where they are put in. Pub/Sub's rule for a topic id: 3 to
 * 255 characters, starting with a letter, made of letters, digits and {@code - _ . ~ + %}, and not
 * starting with {@code goog}.
 */
public final class PubSubTopics {
    private PubSubTopics() {}

    /** The default of {@code --pubsub-topic}: a topic per table, as for Kafka. */
    public static final String DEFAULT_PATTERN = "spanner.{database}.{table}";

    static final int MIN_LENGTH = 3;
    static final int MAX_LENGTH = 255;

    private static final Pattern LEGAL = Pattern.compile("[A-Za-z0-9._~+%-]*");
    private static final Pattern ILLEGAL_CHARACTER = Pattern.compile("[^A-Za-z0-9._~+%-]");

    /**
     * Checks the pattern's own text (its placeholders and its characters); {@code {table}} is not
     * required: one topic for all tables is fine, since every message carries its table as an
     * attribute to filter on.
     *
     * @return what is wrong, naming the flag, or null
     */
    public static String problem(String pattern) {
        String rest = pattern.replace("{database}", "").replace("{table}", "");
        if (rest.contains("{") || rest.contains("}")) {
            return "--pubsub-topic '"
                    + pattern
                    + "' has an unknown placeholder: only {database} and {table}";
        }
        if (!LEGAL.matcher(rest).matches()) {
            return "--pubsub-topic '"
                    + pattern
                    + "' has characters Pub/Sub forbids in topic names: use letters, digits and"
                    + " - _ . ~ + %";
        }
        // The placeholders' values are Spanner names, which start with a letter.
        boolean startsWithPlaceholder =
                pattern.startsWith("{database}") || pattern.startsWith("{table}");
        if (!startsWithPlaceholder && (pattern.isEmpty() || !isAsciiLetter(pattern.charAt(0)))) {
            return "--pubsub-topic '" + pattern + "' must start with a letter";
        }
        if (pattern.toLowerCase(java.util.Locale.ROOT).startsWith("goog")) {
            return "--pubsub-topic '" + pattern + "' must not start with 'goog' (Pub/Sub's rule)";
        }
        return null;
    }

    /**
     * The topic id of a table: the pattern with {@code {database}} and {@code {table}} replaced,
     * each character Pub/Sub forbids in those two values replaced by {@code _}.
     *
     * @throws IllegalArgumentException if the id is shorter or longer than Pub/Sub allows
     */
    public static String topicId(String pattern, String database, String table) {
        String id = pattern.replace("{database}", legal(database)).replace("{table}", legal(table));
        if (id.length() < MIN_LENGTH || id.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "The Pub/Sub topic of table "
                            + table
                            + " would be '"
                            + id
                            + "', "
                            + id.length()
                            + " characters long; Pub/Sub takes "
                            + MIN_LENGTH
                            + " to "
                            + MAX_LENGTH
                            + ": change --pubsub-topic '"
                            + pattern
                            + "'");
        }
        return id;
    }

    private static String legal(String value) {
        return ILLEGAL_CHARACTER.matcher(value).replaceAll("_");
    }

    private static boolean isAsciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }
}
