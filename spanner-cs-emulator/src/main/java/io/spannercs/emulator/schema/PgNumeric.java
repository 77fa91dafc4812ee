package io.spannercs.emulator.schema;

import java.math.BigDecimal;

/**
 * PostgreSQL {@code numeric} values as Spanner's PostgreSQL interface accepts them: up to 131072
 * digits before the decimal point and 16383 after it, and {@code NaN}. Unlike GoogleSQL NUMERIC,
 * the scale is kept as written ({@code 1.50} stays {@code 1.50}), as PostgreSQL keeps it.
 */
final class PgNumeric {
    static final String NAN = "NaN";
    private static final int MAX_INTEGER_DIGITS = 131_072;
    private static final int MAX_SCALE = 16_383;

    private PgNumeric() {}

    /**
     * The canonical text: {@code NaN}, or the decimal without exponent.
     *
     * @throws IllegalArgumentException for text that is not a numeric value or out of range
     */
    static String canonicalize(String text) {
        String t = text.trim();
        if (t.equalsIgnoreCase("nan")) {
            return NAN;
        }
        BigDecimal d;
        try {
            d = new BigDecimal(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid numeric value: " + text);
        }
        if (d.scale() < 0) {
            d = d.setScale(0);
        }
        if (d.scale() > MAX_SCALE || d.precision() - d.scale() > MAX_INTEGER_DIGITS) {
            throw new IllegalArgumentException("numeric value out of range: " + text);
        }
        return d.toPlainString(); // BigDecimal has no negative zero: "-0.0" becomes "0.0"
    }

    /** Numeric order, NaN after every number and equal to itself (PostgreSQL's order). */
    static int compare(String a, String b) {
        boolean an = a.equals(NAN);
        boolean bn = b.equals(NAN);
        if (an || bn) {
            return Boolean.compare(an, bn);
        }
        return new BigDecimal(a).compareTo(new BigDecimal(b));
    }
}
