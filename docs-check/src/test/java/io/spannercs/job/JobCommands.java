package io.spannercs.job;

import java.util.Map;

/** The job jar's flag parsers, for the docs check's {@code flink run} commands. */
public final class JobCommands {
    private JobCommands() {}

    /** The stream a job reads, as its flags name it. */
    public record Stream(
            String project,
            String instance,
            String database,
            String changeStream,
            String emulatorHost) {}

    /**
     * {@link SpannerCdcJob}'s flags.
     *
     * @throws IllegalArgumentException naming every bad flag
     */
    public static Stream cdcJob(String[] args) {
        JobOptions o = JobOptions.parse(args);
        return new Stream(o.project, o.instance, o.database, o.changeStream, o.emulatorHost);
    }

    /** {@link SqlRevenueJob}'s flags: its CREATE TABLE statement (throws on a missing flag). */
    public static String sqlJobTable(String[] args) {
        Map<String, String> flags = SqlRevenueJob.flags(args);
        return SqlRevenueJob.ordersTable(flags);
    }

    /** {@link SqlRevenueJob}'s query. */
    public static String sqlJobQuery() {
        return SqlRevenueJob.REVENUE_QUERY;
    }
}
