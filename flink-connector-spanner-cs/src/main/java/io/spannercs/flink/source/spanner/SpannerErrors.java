package io.spannercs.flink.source.spanner;

import com.google.cloud.spanner.DatabaseNotFoundException;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.InstanceNotFoundException;
import com.google.cloud.spanner.SpannerException;
import io.grpc.Status;
import io.spannercs.flink.source.NonRecoverableSourceException;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
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

    /** PostgreSQL's answer for a change stream function that does not exist. */
    private static final Pattern PG_FUNCTION_MISSING =
            Pattern.compile("(?is).*read_(json|proto_bytes)_\\w+.*does not exist.*");

    /**
     * Whether a restart of the job cannot fix this error, so that it should fail the job once
     * ({@link NonRecoverableSourceException}) instead of restarting it: a database or instance that
     * does not exist (NOT_FOUND; not a lost session, which the client handles), a change stream
     * that does not exist (INVALID_ARGUMENT {@code Table-valued function not found:
     * READ_<stream>}), PERMISSION_DENIED, UNAUTHENTICATED, and a start outside the stream's
     * retention (OUT_OF_RANGE {@code Specified start_timestamp is too far in the past}). Never true
     * where {@link #isTransient} is.
     */
    public static boolean isPermanent(SpannerException e) {
        switch (e.getErrorCode()) {
            case PERMISSION_DENIED:
            case UNAUTHENTICATED:
                return true;
            case NOT_FOUND:
                return isDatabaseNotFound(e);
            case INVALID_ARGUMENT:
                return isChangeStreamNotFound(e);
            case OUT_OF_RANGE:
                return isStartTooOld(e);
            default:
                return false;
        }
    }

    /** NOT_FOUND for the database or its instance (not for a session). */
    public static boolean isDatabaseNotFound(SpannerException e) {
        if (e.getErrorCode() != ErrorCode.NOT_FOUND) {
            return false;
        }
        String d = rawDescription(e);
        return e instanceof DatabaseNotFoundException
                || e instanceof InstanceNotFoundException
                || d.contains("Database not found")
                || d.contains("Instance not found");
    }

    /** Spanner's answer to the query of a change stream that does not exist. */
    static boolean isChangeStreamNotFound(SpannerException e) {
        String d = rawDescription(e);
        return e.getErrorCode() == ErrorCode.INVALID_ARGUMENT
                && (d.contains("Table-valued function not found")
                        || PG_FUNCTION_MISSING.matcher(d).matches());
    }

    private static boolean isStartTooOld(SpannerException e) {
        return e.getErrorCode() == ErrorCode.OUT_OF_RANGE
                && rawDescription(e).contains("start_timestamp is too far in the past");
    }

    /** Spanner's description of the error, or the exception's message if there is none. */
    private static String rawDescription(SpannerException e) {
        String description = Status.fromThrowable(e).getDescription();
        return String.valueOf(description != null ? description : e.getMessage());
    }

    /**
     * The exception a failed Spanner call ends a query or read with: a {@link
     * NonRecoverableSourceException} where {@link #isPermanent}, so the job fails once, else an
     * {@link IllegalStateException} (the job restarts, if its restart strategy allows). Either has
     * {@code message} and the error {@link #forUsers} as its cause.
     */
    public static RuntimeException failure(String message, SpannerException e) {
        Throwable cause = forUsers(e);
        return isPermanent(e)
                ? new NonRecoverableSourceException(message, cause)
                : new IllegalStateException(message, cause);
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
        if (isStartTooOld(e)) {
            return " The start timestamp ("
                    + options(
                            "setStartTimestamp(...)",
                            "'scan.startup.timestamp'",
                            "--start-timestamp")
                    + ") is older than change stream "
                    + config.changeStream()
                    + " keeps changes (its retention_period option), or than the stream itself:"
                    + " choose a later start, or 'scan.startup.mode' = 'latest'. A job restored"
                    + " from a checkpoint or savepoint older than the retention cannot resume:"
                    + " start it anew, without the checkpoint.";
        }
        if (isDatabaseNotFound(e)) {
            return " The database does not exist: check the project, instance and database ("
                    + options(
                            "setProjectId(...), setInstanceId(...), setDatabaseId(...)",
                            "'project', 'instance', 'database'",
                            "--project, --instance, --database")
                    + ").";
        }
        if (isChangeStreamNotFound(e)) {
            return " "
                    + changeStreamMissing(config)
                    + ": check its name ("
                    + options("setChangeStream(...)", "'change-stream'", "--change-stream")
                    + ").";
        }
        if (e.getErrorCode() == ErrorCode.PERMISSION_DENIED) {
            return " The source's credentials may not read change stream "
                    + config.changeStream()
                    + " of database "
                    + config.databaseName()
                    + ": grant the principal roles/spanner.databaseReader on the database, or,"
                    + " with fine-grained access control, use a database role ("
                    + options("setDatabaseRole(...)", "'database-role'", null)
                    + ") that has SELECT on the change stream and EXECUTE on its read function."
                    + " The principal is that of the application default credentials unless a"
                    + " key file is given ("
                    + options("setCredentialsFile(...)", "'credentials-file'", "--credentials")
                    + ").";
        }
        if (e.getErrorCode() == ErrorCode.UNAUTHENTICATED) {
            return " Spanner did not accept the source's credentials: check the service account"
                    + " key file ("
                    + options("setCredentialsFile(...)", "'credentials-file'", "--credentials")
                    + "), or the application default credentials of the JobManager and every"
                    + " TaskManager.";
        }
        if (e.getErrorCode() == ErrorCode.DEADLINE_EXCEEDED
                || e.getErrorCode() == ErrorCode.UNAVAILABLE) {
            return " " + endpointAdvice(config.emulatorHost());
        }
        return "";
    }

    /** A change stream that is not in the database, named with both. */
    public static String changeStreamMissing(SpannerSourceConfig config) {
        return "Change stream "
                + config.changeStream()
                + " does not exist in database "
                + config.databaseName();
    }

    /**
     * The option in each API: {@code setX(...) of the DataStream builder, SQL option 'x', job flag
     * --x} (no job flag where {@code job} is null).
     */
    public static String options(String builder, String sql, String job) {
        return builder
                + " of the DataStream builder, SQL "
                + (sql.contains(",") ? "options " : "option ")
                + sql
                + (job == null ? "" : ", job " + (job.contains(",") ? "flags " : "flag ") + job);
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
        if (e == null || e instanceof NonRecoverableSourceException) {
            return e; // written for users when it was made (and copying would drop its type)
        }
        if (!mentionsRelocation(e)) {
            return e;
        }
        String message = messageForUsers(e);
        Throwable cause = e.getCause();
        if (e instanceof SpannerException && cause != null && isGrpcStatus(cause)) {
            cause = null; // the same code and description, read above
        }
        SpannerCallException copy = new SpannerCallException(message, forUsers(cause));
        copy.setStackTrace(e.getStackTrace());
        return copy;
    }

    /** {@code CODE: description} for the client's exceptions, else class and message. */
    private static String messageForUsers(Throwable e) {
        return e instanceof SpannerException s
                ? describe(s)
                : withoutRelocation(e.getClass().getName())
                        + (e.getMessage() != null ? ": " + withoutRelocation(e.getMessage()) : "");
    }

    /**
     * The exception chain as it is if Java serialization can write it, else a copy whose elements
     * keep their messages (without relocated class names) and stack traces: a reader's failure
     * reaches the JobManager serialized, and gRPC's status exceptions do not serialize.
     */
    public static Throwable serializable(Throwable e) {
        if (e == null || serializes(e)) {
            return e;
        }
        if (e instanceof NonRecoverableSourceException) {
            NonRecoverableSourceException copy =
                    new NonRecoverableSourceException(e.getMessage(), e.getCause());
            copy.setStackTrace(e.getStackTrace());
            return copy;
        }
        String message = messageForUsers(e);
        Throwable cause = e.getCause() == e ? null : e.getCause();
        if (e instanceof SpannerException && cause != null && isGrpcStatus(cause)) {
            cause = null; // the same code and description, read above
        }
        SpannerCallException copy = new SpannerCallException(message, serializable(cause));
        copy.setStackTrace(e.getStackTrace());
        return copy;
    }

    private static boolean serializes(Throwable e) {
        try (ObjectOutputStream out = new ObjectOutputStream(OutputStream.nullOutputStream())) {
            out.writeObject(e);
            return true;
        } catch (IOException | RuntimeException notSerializable) {
            return false;
        }
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
