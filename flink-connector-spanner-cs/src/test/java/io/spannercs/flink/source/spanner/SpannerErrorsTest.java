package io.spannercs.flink.source.spanner;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.SpannerExceptionFactory;
import io.grpc.Status;
import io.spannercs.flink.source.NonRecoverableSourceException;
import io.spannercs.flink.source.TestConfigs;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.io.IOException;
import org.apache.flink.runtime.executiongraph.failover.ExecutionFailureHandler;
import org.apache.flink.util.SerializedThrowable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Which Spanner errors a restart cannot fix, and that Flink sees them so, also after a reader's
 * failure crossed to the JobManager serialized.
 */
class SpannerErrorsTest {

    /** The error as the client gives it: a SpannerException caused by gRPC's status exception. */
    private static SpannerException fromServer(Status.Code code, String description) {
        return SpannerExceptionFactory.newSpannerException(
                Status.fromCode(code).withDescription(description).asRuntimeException());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "NOT_FOUND | Database not found: projects/p/instances/i/databases/d | true",
                "NOT_FOUND | Instance not found: projects/p/instances/i | true",
                "NOT_FOUND | Session not found: projects/p/instances/i/databases/d/sessions/s"
                        + " | false",
                "INVALID_ARGUMENT | Table-valued function not found: READ_nope_cs | true",
                "INVALID_ARGUMENT | function spanner.read_json_nope_cs(timestamp with time zone)"
                        + " does not exist | true",
                "INVALID_ARGUMENT | Specified start_timestamp is invalid for the partition | false",
                "INVALID_ARGUMENT | Specified partition_token is invalid | false",
                "OUT_OF_RANGE | Specified start_timestamp is too far in the past. Please specify"
                        + " a timestamp within the retention period | true",
                "OUT_OF_RANGE | heartbeat_milliseconds must be within min 100 and max 300000"
                        + " | false",
                "PERMISSION_DENIED | Caller is missing IAM permission spanner.databases.select"
                        + " | true",
                "UNAUTHENTICATED | Request had invalid authentication credentials | true",
                "FAILED_PRECONDITION | Read timestamp is too old | false",
            })
    void permanentErrorsAreThoseARestartCannotFix(
            Status.Code code, String description, boolean permanent) {
        SpannerException e = fromServer(code, description);
        assertThat(SpannerErrors.isPermanent(e)).as(description).isEqualTo(permanent);
        // Also as the client words it without a gRPC cause.
        SpannerException bare =
                SpannerExceptionFactory.newSpannerException(
                        ErrorCode.fromGrpcStatus(Status.fromCode(code)), description);
        assertThat(SpannerErrors.isPermanent(bare)).as(description).isEqualTo(permanent);
    }

    @ParameterizedTest
    @EnumSource(
            value = Status.Code.class,
            names = {
                "UNAVAILABLE",
                "DEADLINE_EXCEEDED",
                "ABORTED",
                "RESOURCE_EXHAUSTED",
                "INTERNAL",
                "CANCELLED",
                "UNKNOWN"
            })
    void transientErrorsAreNeverPermanent(Status.Code code) {
        SpannerException e = fromServer(code, "Database not found: too far in the past");
        assertThat(SpannerErrors.isTransient(e.getErrorCode())).isTrue();
        assertThat(SpannerErrors.isPermanent(e)).isFalse();
        assertThat(SpannerErrors.failure("m", e))
                .isNotInstanceOf(NonRecoverableSourceException.class)
                .hasMessage("m");
    }

    @Test
    void aPermanentFailureIsOneFlinkDoesNotRestartAfterCrossingToTheJobManager() throws Exception {
        SpannerException e =
                fromServer(Status.Code.PERMISSION_DENIED, "Caller is missing IAM permission");
        RuntimeException failure = SpannerErrors.failure("Partition p:1 failed", e);
        assertThat(failure).isInstanceOf(NonRecoverableSourceException.class);

        // What a reader's task failure looks like (Flink's fetcher wraps it), and how the
        // TaskManager sends it: a SerializedThrowable, deserialized by the JobManager.
        Throwable taskFailure =
                new RuntimeException(
                        "One or more fetchers have encountered exception",
                        new IOException(failure.getMessage(), failure));
        Throwable atJobManager =
                new SerializedThrowable(taskFailure).deserializeError(getClass().getClassLoader());

        assertThat(atJobManager).isNotInstanceOf(SerializedThrowable.class);
        assertThat(ExecutionFailureHandler.isUnrecoverableError(atJobManager)).isTrue();
        assertThat(org.apache.flink.util.ExceptionUtils.stringifyException(atJobManager))
                .contains("PERMISSION_DENIED: Caller is missing IAM permission");
    }

    @Test
    void aCauseThatDoesNotSerializeIsCopiedWithItsMessageAndStackTrace() {
        RuntimeException unserializable = new Unserializable("holds a lock");
        NonRecoverableSourceException e = new NonRecoverableSourceException("m", unserializable);
        assertThat(e.getCause()).isNotSameAs(unserializable);
        assertThat(e.getCause().getMessage()).contains("holds a lock");
        assertThat(e.getCause().getStackTrace()).isEqualTo(unserializable.getStackTrace());
        assertThat(new SerializedThrowable(e).deserializeError(getClass().getClassLoader()))
                .isInstanceOf(NonRecoverableSourceException.class);

        IllegalStateException serializable = new IllegalStateException("fine");
        assertThat(new NonRecoverableSourceException("m", serializable).getCause())
                .isSameAs(serializable);
    }

    /** As gRPC's status exceptions: a field Java serialization cannot write. */
    private static final class Unserializable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        @SuppressWarnings("unused")
        private final Object lock = new Object();

        Unserializable(String message) {
            super(message);
        }
    }

    @Test
    void adviceNamesTheOptionInEveryApi() {
        SpannerSourceConfig config = config();
        assertThat(
                        SpannerErrors.explain(
                                fromServer(
                                        Status.Code.NOT_FOUND,
                                        "Database not found: " + config.databaseName()),
                                config))
                .contains("Database not found: " + config.databaseName())
                .contains("The database does not exist")
                .contains("setDatabaseId(...)", "'database'", "--database");
        assertThat(
                        SpannerErrors.explain(
                                fromServer(
                                        Status.Code.INVALID_ARGUMENT,
                                        "Table-valued function not found: READ_orders_cs"),
                                config))
                .contains("Change stream orders_cs does not exist in database")
                .contains("setChangeStream(...)", "'change-stream'", "--change-stream");
        assertThat(
                        SpannerErrors.explain(
                                fromServer(Status.Code.PERMISSION_DENIED, "Caller is missing"),
                                config))
                .contains("roles/spanner.databaseReader", "setDatabaseRole(...)")
                .contains("'database-role'", "'credentials-file'", "--credentials");
        assertThat(
                        SpannerErrors.explain(
                                fromServer(Status.Code.UNAUTHENTICATED, "invalid credentials"),
                                config))
                .contains("setCredentialsFile(...)", "'credentials-file'", "--credentials");
        assertThat(
                        SpannerErrors.explain(
                                fromServer(
                                        Status.Code.OUT_OF_RANGE,
                                        "Specified start_timestamp is too far in the past."),
                                config))
                .contains("setStartTimestamp(...)", "'scan.startup.timestamp'")
                .contains("--start-timestamp", "start it anew, without the checkpoint");
    }

    private static SpannerSourceConfig config() {
        return TestConfigs.config(
                TestConfigs.builder(
                        "orders_cs", 1_700_000_000_000_000L, SpannerSourceConfig.NO_END));
    }
}
