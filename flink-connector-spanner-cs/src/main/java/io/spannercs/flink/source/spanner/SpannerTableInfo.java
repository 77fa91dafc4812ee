package io.spannercs.flink.source.spanner;

import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.SpannerOptions;
import com.google.cloud.spanner.Statement;
import io.spannercs.flink.table.CaptureTypeSupport;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;

/**
 * What planning needs from the database: the table's columns and the change stream's value capture
 * type, read once from the information schema through the official client (both dialects).
 *
 * @param columns the table's columns to their {@code spanner_type}, or null if there is no such
 *     table
 * @param valueCaptureType the stream's, Spanner's default where the option is not set
 */
@Internal
public record SpannerTableInfo(Map<String, String> columns, String valueCaptureType) {

    /** Connection settings of a {@code spanner-cdc} table. */
    public record Connection(
            String project,
            String instance,
            String database,
            String emulatorHost,
            String credentialsFile,
            String databaseRole) {}

    /**
     * @throws ValidationException when the information schema cannot be read or has no such stream
     */
    public static SpannerTableInfo read(Connection c, String table, String stream) {
        // On a thread of its own: the client leaves thread locals on the threads it runs on, and a
        // SQL gateway plans on pooled threads that outlive the session's class loader.
        return SpannerClients.callOnOwnThread(
                "spanner-cs-schema", () -> readOnThisThread(c, table, stream));
    }

    private static SpannerTableInfo readOnThisThread(Connection c, String table, String stream) {
        // Not waiting for the client's threads when it closes (they end within about a second):
        // planning would wait as long, and the session's class loader outlives them.
        try (LazySpannerClient spanner =
                LazySpannerClient.ownClient(() -> client(c), "Reading the schema", false)) {
            // Outside read's translation: a client that cannot start names its endpoint itself.
            return read(spanner.get(), c, table, stream);
        }
    }

    private static SpannerTableInfo read(
            Spanner spanner, Connection c, String table, String stream) {
        try {
            DatabaseClient db =
                    spanner.getDatabaseClient(
                            DatabaseId.of(c.project(), c.instance(), c.database()));
            Map<String, Map<String, String>> tables = SpannerColumnTypes.read(db);
            return new SpannerTableInfo(tables.get(table), captureType(db, stream));
        } catch (ValidationException e) {
            throw e;
        } catch (RuntimeException e) {
            // The message, not the cause: the SQL client shows only the root cause, and the
            // client's exceptions carry relocated class names in the SQL jar.
            if (e instanceof SpannerException s && SpannerErrors.isDatabaseNotFound(s)) {
                ValidationException error =
                        new ValidationException(
                                "Database '"
                                        + DatabaseId.of(c.project(), c.instance(), c.database())
                                        + "' does not exist ("
                                        + describe(e)
                                        + "): check the options 'project', 'instance' and"
                                        + " 'database'"
                                        + (c.emulatorHost() != null ? " (and 'emulator-host')" : "")
                                        + ".");
                error.addSuppressed(SpannerErrors.forUsers(e));
                throw error;
            }
            ValidationException error =
                    new ValidationException(
                            "Cannot read the schema of table '"
                                    + table
                                    + "' and change stream '"
                                    + stream
                                    + "' from the information schema of database '"
                                    + DatabaseId.of(c.project(), c.instance(), c.database())
                                    + "' (options 'project', 'instance', 'database'"
                                    + (c.emulatorHost() != null
                                            ? ", 'emulator-host'"
                                            : ", 'credentials-file', 'database-role'")
                                    + "): "
                                    + describe(e));
            error.addSuppressed(SpannerErrors.forUsers(e));
            throw error;
        }
    }

    /** Java class names in messages, as the client writes its causes: {@code io.grpc.X: }. */
    private static final Pattern CLASS_NAME =
            Pattern.compile("(?:[a-z_$][\\w$]*\\.)+[A-Z][\\w$]*(?:Exception|Error)(?::\\s*)?");

    /**
     * The error's code and description without Java class names, e.g. {@code NOT_FOUND: Database
     * not found: projects/p/instances/i/databases/d}.
     */
    static String describe(Throwable e) {
        String text = e.getMessage() == null ? "" : e.getMessage();
        text = CLASS_NAME.matcher(text).replaceAll("").trim();
        if (e instanceof SpannerException s) {
            String code = s.getErrorCode().name();
            // "NOT_FOUND: NOT_FOUND: ..." once the cause's class name is gone.
            while (text.startsWith(code + ": " + code + ":")) {
                text = text.substring(code.length() + 2);
            }
            if (!text.startsWith(code)) {
                text = code + ": " + text;
            }
        }
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline).trim();
    }

    private static String captureType(DatabaseClient db, String stream) {
        String captureType = CaptureTypeSupport.DEFAULT;
        boolean found = ChangeStreamNames.list(db).contains(stream);
        if (!found) {
            throw new ValidationException(
                    "Change stream '" + stream + "' does not exist (option 'change-stream').");
        }
        try (ResultSet rs =
                db.singleUse()
                        .executeQuery(
                                Statement.of(
                                        "SELECT change_stream_name, option_name, option_value"
                                                + " FROM information_schema.change_stream_options"))) {
            while (rs.next()) {
                if (rs.getString(0).equals(stream)
                        && rs.getString(1).equalsIgnoreCase("value_capture_type")) {
                    captureType = rs.getString(2);
                }
            }
        }
        return captureType;
    }

    private static Spanner client(Connection c) {
        SpannerOptions.Builder b =
                SpannerOptions.newBuilder()
                        .setProjectId(c.project())
                        .setBuiltInMetricsEnabled(false);
        if (c.emulatorHost() != null) {
            b.setEmulatorHost(c.emulatorHost()).setCredentials(NoCredentials.getInstance());
        } else if (c.credentialsFile() != null) {
            try (InputStream in = new FileInputStream(c.credentialsFile())) {
                b.setCredentials(GoogleCredentials.fromStream(in));
            } catch (IOException e) {
                ValidationException error =
                        new ValidationException(
                                "Cannot read 'credentials-file' = '"
                                        + c.credentialsFile()
                                        + "': "
                                        + describe(e)
                                        + ". Use the path of a service account key file (JSON),"
                                        + " or leave the option out for application default"
                                        + " credentials.");
                error.addSuppressed(e);
                throw error;
            }
        }
        if (c.databaseRole() != null) {
            b.setDatabaseRole(c.databaseRole());
        }
        return SpannerClients.open(b, c.project(), c.emulatorHost());
    }
}
