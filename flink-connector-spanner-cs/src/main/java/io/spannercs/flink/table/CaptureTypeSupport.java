package io.spannercs.flink.table;

import io.spannercs.flink.table.SpannerCdcOptions.ChangelogModeOption;
import java.util.Locale;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;

/**
 * Which changelog a change stream's value capture type can give. A changelog row must be a whole
 * row, and the capture types record whole rows only partly:
 *
 * <ul>
 *   <li>{@code all} needs the row before an UPDATE (UPDATE_BEFORE) and before a DELETE. Only
 *       NEW_ROW_AND_OLD_VALUES has both: the full new row, with the written columns' old values to
 *       rebuild the row before.
 *   <li>{@code upsert} needs the full row after INSERT and UPDATE; a DELETE needs only the key.
 *       NEW_ROW and NEW_ROW_AND_OLD_VALUES record it.
 *   <li>OLD_AND_NEW_VALUES and NEW_VALUES record only the written columns of an UPDATE, so neither
 *       mode can be served.
 * </ul>
 */
@Internal
public final class CaptureTypeSupport {
    /** Spanner's default, used when {@code change_stream_options} has no value_capture_type. */
    public static final String DEFAULT = "OLD_AND_NEW_VALUES";

    private CaptureTypeSupport() {}

    /**
     * @throws ValidationException naming the capture type and what to change, when the stream's
     *     capture type cannot give the mode's rows
     */
    public static void check(ChangelogModeOption mode, String captureType, String stream) {
        String type = captureType.toUpperCase(Locale.ROOT);
        boolean newRow = type.equals("NEW_ROW") || type.equals("NEW_ROW_AND_OLD_VALUES");
        if (mode == ChangelogModeOption.ALL && !type.equals("NEW_ROW_AND_OLD_VALUES")) {
            throw new ValidationException(
                    "'changelog-mode' = 'all' needs full rows before each UPDATE and DELETE, but"
                            + " change stream '"
                            + stream
                            + "' has value_capture_type "
                            + type
                            + (newRow
                                    ? ", which records no old values: use 'changelog-mode' ="
                                            + " 'upsert' (with a PRIMARY KEY), or"
                                    : ", which records only the written columns of an UPDATE:")
                            + " set the stream's value_capture_type to 'NEW_ROW_AND_OLD_VALUES'.");
        }
        if (mode == ChangelogModeOption.UPSERT && !newRow) {
            throw new ValidationException(
                    "'changelog-mode' = 'upsert' needs the full row after each UPDATE, but change"
                            + " stream '"
                            + stream
                            + "' has value_capture_type "
                            + type
                            + ", which records only the written columns: set the stream's"
                            + " value_capture_type to 'NEW_ROW' or 'NEW_ROW_AND_OLD_VALUES'.");
        }
    }

    /** Whether a DELETE carries only the key (no old values recorded). */
    public static boolean keyOnlyDeletes(String captureType) {
        return captureType.equalsIgnoreCase("NEW_ROW");
    }
}
