package io.spannercs.emulator.grpc;

import com.google.longrunning.Operation;
import com.google.protobuf.Any;
import com.google.protobuf.Empty;
import com.google.spanner.admin.database.v1.Database;
import com.google.spanner.admin.database.v1.DatabaseAdminGrpc;
import com.google.spanner.admin.database.v1.DatabaseDialect;
import com.google.spanner.admin.database.v1.GetDatabaseRequest;
import com.google.spanner.admin.database.v1.ListDatabasesRequest;
import com.google.spanner.admin.database.v1.ListDatabasesResponse;
import com.google.spanner.admin.database.v1.UpdateDatabaseDdlMetadata;
import com.google.spanner.admin.database.v1.UpdateDatabaseDdlRequest;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.schema.DdlParser;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.schema.VersionRetention;
import io.spannercs.emulator.storage.Timestamps;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The part of the database admin API the emulator serves: {@code GetDatabase} and {@code
 * ListDatabases} (the dialect, {@code version_retention_period} and {@code earliest_version_time}),
 * and {@code UpdateDatabaseDdl} for {@code ALTER DATABASE ... version_retention_period} only (the
 * schema is fixed when the emulator starts). Other schema changes and backups answer {@code
 * UNIMPLEMENTED}.
 */
public final class DatabaseAdminService extends DatabaseAdminGrpc.DatabaseAdminImplBase {
    private final Supplier<Collection<EmulatedDatabase>> databases;
    private final AtomicLong operations = new AtomicLong();

    public DatabaseAdminService(Supplier<Collection<EmulatedDatabase>> databases) {
        this.databases = databases;
    }

    @Override
    public void getDatabase(GetDatabaseRequest request, StreamObserver<Database> observer) {
        for (EmulatedDatabase db : databases.get()) {
            if (db.name().equals(request.getName())) {
                observer.onNext(toProto(db));
                observer.onCompleted();
                return;
            }
        }
        observer.onError(
                Status.NOT_FOUND
                        .withDescription("Database not found: " + request.getName())
                        .asRuntimeException());
    }

    @Override
    public void listDatabases(
            ListDatabasesRequest request, StreamObserver<ListDatabasesResponse> observer) {
        ListDatabasesResponse.Builder b = ListDatabasesResponse.newBuilder();
        for (EmulatedDatabase db : databases.get()) {
            if (db.name().startsWith(request.getParent() + "/databases/")) {
                b.addDatabases(toProto(db));
            }
        }
        observer.onNext(b.build());
        observer.onCompleted();
    }

    /**
     * Applies {@code ALTER DATABASE <db> SET OPTIONS (version_retention_period = '...')}
     * (PostgreSQL: {@code ALTER DATABASE <db> SET spanner.version_retention_period = '...'}) and
     * answers with a finished operation. Every statement is checked before any is applied.
     */
    @Override
    public void updateDatabaseDdl(
            UpdateDatabaseDdlRequest request, StreamObserver<Operation> observer) {
        EmulatedDatabase db = null;
        for (EmulatedDatabase d : databases.get()) {
            if (d.name().equals(request.getDatabase())) {
                db = d;
            }
        }
        if (db == null) {
            observer.onError(
                    Status.NOT_FOUND
                            .withDescription("Database not found: " + request.getDatabase())
                            .asRuntimeException());
            return;
        }
        if (request.getStatementsCount() == 0) {
            observer.onError(
                    Status.INVALID_ARGUMENT
                            .withDescription("Missing statements in the request.")
                            .asRuntimeException());
            return;
        }
        VersionRetention retention = null;
        for (String statement : request.getStatementsList()) {
            String normalized = statement.trim().toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
            if (!normalized.startsWith("ALTER DATABASE ")) {
                observer.onError(
                        Status.UNIMPLEMENTED
                                .withDescription(
                                        "The emulator's schema is fixed when it starts; at run time"
                                                + " it only accepts ALTER DATABASE ... "
                                                + VersionRetention.OPTION
                                                + ", not: "
                                                + statement)
                                .asRuntimeException());
                return;
            }
            try {
                Optional<VersionRetention> r =
                        DdlParser.parseAlterDatabase(statement, db.dialect());
                if (r.isPresent()) {
                    retention = r.get();
                }
            } catch (IllegalArgumentException e) {
                observer.onError(
                        Status.INVALID_ARGUMENT
                                .withDescription(
                                        "Error parsing Spanner DDL statement: "
                                                + statement
                                                + " : "
                                                + e.getMessage())
                                .asRuntimeException());
                return;
            }
        }
        if (retention != null) {
            db.database().setVersionRetention(retention);
        }
        List<com.google.protobuf.Timestamp> commits = new ArrayList<>();
        com.google.protobuf.Timestamp now = Timestamps.toProto(Timestamps.nowMicros());
        for (int i = 0; i < request.getStatementsCount(); i++) {
            commits.add(now);
        }
        String id =
                request.getOperationId().isEmpty()
                        ? "_auto_op_" + operations.incrementAndGet()
                        : request.getOperationId();
        observer.onNext(
                Operation.newBuilder()
                        .setName(db.name() + "/operations/" + id)
                        .setDone(true)
                        .setMetadata(
                                Any.pack(
                                        UpdateDatabaseDdlMetadata.newBuilder()
                                                .setDatabase(db.name())
                                                .addAllStatements(request.getStatementsList())
                                                .addAllCommitTimestamps(commits)
                                                .build()))
                        .setResponse(Any.pack(Empty.getDefaultInstance()))
                        .build());
        observer.onCompleted();
    }

    private static Database toProto(EmulatedDatabase db) {
        return Database.newBuilder()
                .setName(db.name())
                .setState(Database.State.READY)
                .setCreateTime(Timestamps.toProto(db.database().createdMicros()))
                .setVersionRetentionPeriod(db.versionRetention().text())
                .setEarliestVersionTime(Timestamps.toProto(db.database().earliestVersionMicros()))
                .setDatabaseDialect(
                        db.dialect() == Dialect.POSTGRESQL
                                ? DatabaseDialect.POSTGRESQL
                                : DatabaseDialect.GOOGLE_STANDARD_SQL)
                .build();
    }
}
