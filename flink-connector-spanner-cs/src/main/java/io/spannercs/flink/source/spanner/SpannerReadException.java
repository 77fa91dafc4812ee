package io.spannercs.flink.source.spanner;

import com.google.cloud.spanner.SpannerException;
import io.spannercs.flink.source.NonRecoverableSourceException;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import org.apache.flink.annotation.Internal;

/**
 * Spanner failed a query or read of a reader. Says whether a retry may help, and turns itself into
 * the failure the reader ends with, in the connector's words ({@link SpannerErrors}).
 */
@Internal
public final class SpannerReadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient SpannerException error;

    public SpannerReadException(SpannerException error) {
        super(error.getMessage(), error);
        this.error = error;
    }

    /** Whether the same query may succeed when run again (after a backoff). */
    public boolean isTransient() {
        return SpannerErrors.isTransient(error.getErrorCode());
    }

    /** Spanner's error code, for logs. */
    public String code() {
        return error.getErrorCode().name();
    }

    /**
     * The failure that ends the reading.
     *
     * @param what what failed, e.g. "Change stream cs of db, partition p"
     */
    public RuntimeException failure(String what, SpannerSourceConfig config) {
        return SpannerErrors.failure(
                what + " failed: " + SpannerErrors.explain(error, config), error);
    }

    /**
     * The failure that ends a snapshot read: non-recoverable when its timestamp fell out of the
     * version retention (a restart reads at the same timestamp), else as {@link #failure}.
     */
    public RuntimeException snapshotFailure(
            String what, long snapshotMicros, SpannerSourceConfig config) {
        if (SpannerErrors.isSnapshotTooOld(error.getErrorCode())) {
            return new NonRecoverableSourceException(
                    what
                            + " failed: "
                            + SpannerErrors.describe(error)
                            + ". "
                            + SpannerErrors.snapshotRetentionAdvice(snapshotMicros, config),
                    SpannerErrors.forUsers(error));
        }
        return failure(what, config);
    }
}
