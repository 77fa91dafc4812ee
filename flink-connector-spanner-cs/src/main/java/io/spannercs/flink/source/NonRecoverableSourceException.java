package io.spannercs.flink.source;

import io.spannercs.flink.source.spanner.SpannerErrors;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A failure of the source that a restart cannot fix: a database or change stream that does not
 * exist, no permission to read it, credentials Spanner does not accept, a start outside the
 * stream's retention, a value this connector does not know with {@link UnknownValueHandling#FAIL}.
 * Flink fails the job at once, whatever its restart strategy, when this exception is anywhere in a
 * failure's cause chain ({@code ThrowableType.NonRecoverableError}); its message names what failed
 * and the option to change.
 *
 * <p>Its cause is kept Java-serializable: a reader's failure reaches the JobManager serialized, and
 * one that cannot be deserialized there loses its type, and with it this classification. Causes
 * that do not serialize (gRPC's status exceptions do not) are replaced by copies that keep their
 * messages and stack traces.
 */
@PublicEvolving
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public class NonRecoverableSourceException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NonRecoverableSourceException(String message) {
        super(message);
    }

    public NonRecoverableSourceException(String message, Throwable cause) {
        super(message, SpannerErrors.serializable(cause));
    }
}
