package io.spannercs.flink.source.config;

import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.SpannerException;
import io.grpc.Status;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;

/**
 * Spanner's errors as users should read them: the gRPC code and Spanner's own description, what the
 * source was doing, the option to change and how, and no class names of the client's relocated
 * dependencies (the SQL jar relocates gRPC, so the client's messages and causes would read {@code
 * io.spannercs.shaded.io.grpc.StatusRuntimeException}).
 */
@Internal
public final class SpannerErrors {
    private static final String RELOCATED = "io.spannercs.shaded.";

    /** The client's messages repeat the code after gRPC's exception class. */
    private static final Pattern GRPC_STATUS_PREFIX =
            Pattern.compile(
                    "^(io\\.spannercs\\.shaded\\.)?io\\.grpc\\.Status(Runtime)?Exception: [A-Z_]+: ");

    private SpannerErrors() {}

    /**
     * Whether a snapshot read failed because its timestamp fell out of the database's {@code
     * version_retention_period} (Spanner answers FAILED_PRECONDITION, or OUT_OF_RANGE).
     */
    public static boolean isSnapshotTooOld(com.google.cloud.spanner.ErrorCode code) {
        return code == com.google.cloud.spanner.ErrorCode.FAILED_PRECONDITION
                || code == com.google.cloud.spanner.ErrorCode.OUT_OF_RANGE;
    }

    /** What to do when a snapshot at {@code snapshotMicros} outlived the version retention. */
    public static String snapshotRetentionAdvice(long snapshotMicros, SpannerSourceConfig config) {
        return "Spanner answers so when a read's timestamp has left the database's"
                + " version_retention_period: the snapshot timestamp "
                + java.time.Instant.ofEpochSecond(0, snapshotMicros * 1000)
                + " must stay within the database's version_retention_period until the snapshot"
                + " ends. If that is the cause, raise it (ALTER DATABASE "
                + config.databaseId()
                + " SET OPTIONS (version_retention_period = '1d')), or give the job more"
                + " parallelism so the snapshot ends sooner.";
    }

    /**
     * Codes a streaming query or read fails with transiently. The client retries UNAVAILABLE and
     * some INTERNAL errors itself with resume tokens; what it gives up on is retried by the source,
     * from the last record or row it fetched.
     */
    public static boolean isTransient(com.google.cloud.spanner.ErrorCode code) {
        switch (code) {
            case UNAVAILABLE:
            case DEADLINE_EXCEEDED:
            case ABORTED:
            case RESOURCE_EXHAUSTED:
            case INTERNAL:
            case CANCELLED:
            case UNKNOWN:
                return true;
            default:
                return false;
        }
    }

    /** {@code CODE: description}, e.g. {@code OUT_OF_RANGE: Specified start_timestamp is ...}. */
    public static String describe(SpannerException e) {
        String description = Status.fromThrowable(e).getDescription();
        if (description == null) {
            description = e.getMessage();
            String prefix = e.getErrorCode() + ": ";
            if (description != null && description.startsWith(prefix)) {
                description = description.substring(prefix.length());
            }
            if (description != null) {
                description = GRPC_STATUS_PREFIX.matcher(description).replaceFirst("");
            }
        }
        return e.getErrorCode() + ": " + withoutRelocation(description);
    }

    /** {@link #describe} as a sentence, followed by {@link #advice}. */
    public static String explain(SpannerException e, SpannerSourceConfig config) {
        String described = describe(e);
        return described + (described.endsWith(".") ? "" : ".") + advice(e, config);
    }

    /**
     * What to do about an error, naming the option; empty when there is nothing specific to say.
     */
    public static String advice(SpannerException e, SpannerSourceConfig config) {
        String description = String.valueOf(Status.fromThrowable(e).getDescription());
        if (e.getErrorCode() == ErrorCode.OUT_OF_RANGE
                && description.contains("start_timestamp is too far in the past")) {
            return " The start timestamp (SQL option 'scan.startup.timestamp', or"
                    + " setStartTimestamp(...) of the DataStream builder) is older than change"
                    + " stream "
                    + config.changeStream()
                    + " keeps changes (its retention_period option), or than the stream itself:"
                    + " choose a later start, or 'scan.startup.mode' = 'latest'.";
        }
        if (e.getErrorCode() == ErrorCode.DEADLINE_EXCEEDED
                || e.getErrorCode() == ErrorCode.UNAVAILABLE) {
            return " " + endpointAdvice(config.emulatorHost());
        }
        return "";
    }

    /** Names the endpoint and the option that chose it, for a call that got no answer. */
    static String endpointAdvice(String emulatorHost) {
        if (emulatorHost != null) {
            return "No answer from the Spanner emulator at "
                    + emulatorHost
                    + " (SQL option 'emulator-host', or setEmulatorHost(...) of the DataStream"
                    + " builder): check that a Spanner emulator serves gRPC at that host and port"
                    + " and that it is reachable from the Flink cluster.";
        }
        return "No answer from Spanner at spanner.googleapis.com:443: check that the Flink"
                + " cluster can reach it (network, proxy, firewall).";
    }

    /**
     * A copy of an exception chain for users: each element keeps its stack trace, but messages and
     * class names of relocated classes are written without the relocation prefix, and the client's
     * exceptions read {@code CODE: description}.
     */
    public static Throwable forUsers(Throwable e) {
        if (e == null) {
            return null;
        }
        if (!mentionsRelocation(e)) {
            return e;
        }
        String message =
                e instanceof SpannerException s
                        ? describe(s)
                        : withoutRelocation(e.getClass().getName())
                                + (e.getMessage() != null
                                        ? ": " + withoutRelocation(e.getMessage())
                                        : "");
        Throwable cause = e.getCause();
        if (e instanceof SpannerException && cause != null && isGrpcStatus(cause)) {
            cause = null; // the same code and description, read above
        }
        SpannerCallException copy = new SpannerCallException(message, forUsers(cause));
        copy.setStackTrace(e.getStackTrace());
        return copy;
    }

    private static boolean isGrpcStatus(Throwable t) {
        return t instanceof io.grpc.StatusRuntimeException || t instanceof io.grpc.StatusException;
    }

    private static boolean mentionsRelocation(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getClass().getName().startsWith(RELOCATED)
                    || (t.getMessage() != null && t.getMessage().contains(RELOCATED))) {
                return true;
            }
        }
        return false;
    }

    /** The text with relocated class names written as their originals. */
    public static String withoutRelocation(String text) {
        return text == null ? null : text.replace(RELOCATED, "");
    }

    /** An error of the Spanner client, as described by {@link #forUsers}. */
    public static final class SpannerCallException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SpannerCallException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
