package io.spannercs.emulator.grpc;

import com.google.spanner.admin.database.v1.Database;
import com.google.spanner.admin.database.v1.DatabaseAdminGrpc;
import com.google.spanner.admin.database.v1.DatabaseDialect;
import com.google.spanner.admin.database.v1.GetDatabaseRequest;
import com.google.spanner.admin.database.v1.ListDatabasesRequest;
import com.google.spanner.admin.database.v1.ListDatabasesResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.storage.Timestamps;
import java.util.Collection;
import java.util.function.Supplier;

/**
 * The read-only part of the database admin API: {@code GetDatabase} and {@code ListDatabases}, so
 * {@code DatabaseAdminClient.getDatabase(...).getDialect()} reports the served database's dialect.
 * Schema changes and backups answer {@code UNIMPLEMENTED}.
 */
public final class DatabaseAdminService extends DatabaseAdminGrpc.DatabaseAdminImplBase {
    private final Supplier<Collection<EmulatedDatabase>> databases;

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

    private static Database toProto(EmulatedDatabase db) {
        return Database.newBuilder()
                .setName(db.name())
                .setState(Database.State.READY)
                .setCreateTime(Timestamps.toProto(db.database().createdMicros()))
                .setDatabaseDialect(
                        db.dialect() == Dialect.POSTGRESQL
                                ? DatabaseDialect.POSTGRESQL
                                : DatabaseDialect.GOOGLE_STANDARD_SQL)
                .build();
    }
}
