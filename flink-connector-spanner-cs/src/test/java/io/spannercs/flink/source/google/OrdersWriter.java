package io.spannercs.flink.source.google;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import io.spannercs.flink.format.ChangeEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Writes transactions of two or three changes to distinct rows of {@code Orders (OrderId INT64,
 * Customer STRING, Amount INT64)} and {@code Customers (Name STRING, Tier INT64)} through the
 * official client, and keeps the identity of every change as the stream must report it: its commit
 * timestamp from the client, and INSERT, UPDATE or DELETE from which rows exist (see {@link
 * #identity}). Not thread-safe: one writer thread, read {@link #written()} after it stopped.
 */
final class OrdersWriter {
    static final List<String> DDL =
            List.of(
                    "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX), Amount"
                            + " INT64) PRIMARY KEY (OrderId)",
                    "CREATE TABLE Customers (Name STRING(MAX) NOT NULL, Tier INT64) PRIMARY KEY"
                            + " (Name)",
                    "CREATE CHANGE STREAM everything FOR ALL");

    private static final int ORDER_IDS = 300;
    private static final int CUSTOMERS = 60;

    private final DatabaseClient client;
    private final Random random;
    private final Set<Long> orders = new HashSet<>();
    private final Set<String> customers = new HashSet<>();
    private final List<String> written = new ArrayList<>();

    OrdersWriter(DatabaseClient client, long seed) {
        this.client = client;
        this.random = new Random(seed);
    }

    /** The identity of a delivered change, comparable with {@link #written()}. */
    static String identity(ChangeEvent e) {
        Instant ts = e.getCommitTimestamp();
        long micros = ts.getEpochSecond() * 1_000_000L + ts.getNano() / 1000;
        return micros + "|" + e.getTable() + "|" + e.getChangeType() + "|" + e.getKeys();
    }

    /** Identities of the changes committed so far, in commit order. */
    List<String> written() {
        return written;
    }

    /**
     * Inserts every order and customer the writer's changes pick from (so they update and delete
     * existing rows from the start) and {@code bulkOrders} more orders with ids from 1,000 that the
     * writer never touches, in transactions of 500 rows. These rows are not changes to deliver: a
     * snapshot taken after them holds them.
     */
    void prefill(int bulkOrders) {
        List<Mutation> batch = new ArrayList<>();
        for (long id = 0; id < ORDER_IDS; id++) {
            batch.add(order(id));
            orders.add(id);
        }
        for (int c = 0; c < CUSTOMERS; c++) {
            String name = "c" + c;
            batch.add(
                    Mutation.newInsertBuilder("Customers")
                            .set("Name")
                            .to(name)
                            .set("Tier")
                            .to(random.nextInt(5))
                            .build());
            customers.add(name);
        }
        for (long id = 1000; id < 1000 + bulkOrders; id++) {
            batch.add(order(id));
            if (batch.size() == 500) {
                client.write(batch);
                batch = new ArrayList<>();
            }
        }
        if (!batch.isEmpty()) {
            client.write(batch);
        }
    }

    private Mutation order(long id) {
        return Mutation.newInsertBuilder("Orders")
                .set("OrderId")
                .to(id)
                .set("Customer")
                .to("c" + random.nextInt(CUSTOMERS))
                .set("Amount")
                .to(random.nextInt(1000))
                .build();
    }

    /** Commits one transaction and records its changes. */
    void writeOne() {
        List<Mutation> mutations = new ArrayList<>();
        List<String> changes = new ArrayList<>();
        Set<Object> touched = new HashSet<>();
        int n = 2 + random.nextInt(2);
        while (mutations.size() < n) {
            if (random.nextInt(3) > 0) {
                long id = random.nextInt(ORDER_IDS);
                if (touched.add(id)) {
                    changes.add(orderChange(id, mutations));
                }
            } else {
                String name = "c" + random.nextInt(CUSTOMERS);
                if (touched.add(name)) {
                    changes.add(customerChange(name, mutations));
                }
            }
        }
        Timestamp ts = client.write(mutations);
        long micros = ts.getSeconds() * 1_000_000L + ts.getNanos() / 1000;
        changes.forEach(c -> written.add(micros + "|" + c));
    }

    private String orderChange(long id, List<Mutation> mutations) {
        String type;
        if (!orders.contains(id)) {
            mutations.add(
                    Mutation.newInsertBuilder("Orders")
                            .set("OrderId")
                            .to(id)
                            .set("Customer")
                            .to("c" + random.nextInt(CUSTOMERS))
                            .set("Amount")
                            .to(random.nextInt(1000))
                            .build());
            orders.add(id);
            type = "INSERT";
        } else if (random.nextInt(4) > 0) {
            mutations.add(
                    Mutation.newUpdateBuilder("Orders")
                            .set("OrderId")
                            .to(id)
                            .set("Amount")
                            .to(random.nextInt(1000))
                            .build());
            type = "UPDATE";
        } else {
            mutations.add(Mutation.delete("Orders", Key.of(id)));
            orders.remove(id);
            type = "DELETE";
        }
        return "Orders|" + type + "|{OrderId=" + id + "}";
    }

    private String customerChange(String name, List<Mutation> mutations) {
        String type;
        if (!customers.contains(name)) {
            type = "INSERT";
            customers.add(name);
        } else {
            type = "UPDATE";
        }
        // One mutation kind for both: the stream tells inserts from updates by the row.
        mutations.add(
                Mutation.newInsertOrUpdateBuilder("Customers")
                        .set("Name")
                        .to(name)
                        .set("Tier")
                        .to(random.nextInt(5))
                        .build());
        return "Customers|" + type + "|{Name=" + name + "}";
    }
}
